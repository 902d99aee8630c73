"""The index's sentences (the candidates for an answer's excerpt), held as places in the documents' own text.

Every sentence is a piece of one paragraph or list of its question or section (`bot.knowledge.chunks` cuts
them so), and the loaded knowledge holds those paragraphs anyway. A sentence is therefore kept as four
numbers: its owner (document, language, question), the paragraph, and where in it the sentence starts and
ends; its text is cut out when it is read (an answer reads a few dozen). Numbers in arrays take a small part
of what a string and an object per sentence took. A sentence the paragraphs do not
hold (an index written by other code) keeps its own text, and is read the same.

`Sentences` reads like the list of `Sentence` it replaces: `len`, iteration, `[i]`, and `==`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator

from bot.knowledge import KnowledgeBase
from bot.knowledge.chunks import Sentence
from bot.knowledge.model import Document

Owner = tuple[str, str, int]  # (doc id, language, question or section number)


class Sentences:
    """The sentences of an index, in index order (made by `SentencesBuilder`)."""

    def __init__(self, owners: list[Owner], sources: list[str], owner: array[int], source: array[int],
                 start: array[int], end: array[int]) -> None:
        self._owners = owners
        self._sources = sources
        self._owner, self._source, self._start, self._end = owner, source, start, end

    def __len__(self) -> int:
        return len(self._owner)

    def __getitem__(self, i: int) -> Sentence:
        doc_id, lang, question = self._owners[self._owner[i]]
        return Sentence(doc_id, lang, question, self.text(i))

    def __iter__(self) -> Iterator[Sentence]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sentences):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def text(self, i: int) -> str:
        return self._sources[self._source[i]][self._start[i] : self._end[i]]

    def texts(self) -> list[str]:
        return [self.text(i) for i in range(len(self))]

    def owners(self) -> Iterator[Owner]:
        """Each sentence's (doc id, language, question), without reading its text."""
        owners = self._owners
        return (owners[at] for at in self._owner)


class SentencesBuilder:
    """Sentences added one by one (`add`), or taken from another index's (`take`), then `done`. A sentence's
    text is looked for in its question's paragraphs from where the last one of that question was found (they
    come in document order), then in all of them."""

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self._knowledge = knowledge
        self._documents: dict[tuple[str, str], Document] | None = None  # by (doc id, language), made when needed
        self._blocks: dict[int, list[str]] = {}  # per owner added to: its question's block texts
        self._cursor: dict[int, tuple[int, int]] = {}  # per owner: the block and place after the last found
        self._owners: list[Owner] = []
        self._owner_at: dict[Owner, int] = {}
        self._sources: list[str] = []
        self._source_at: dict[int, int] = {}  # id of a source string -> its place (the strings stay alive)
        self._owner, self._source, self._start, self._end = array("i"), array("i"), array("i"), array("i")

    def add(self, doc_id: str, lang: str, question: int, text: str) -> None:
        owner = self._owner_number((doc_id, lang, question))
        blocks = self._blocks.get(owner)
        if blocks is None:
            blocks = self._blocks[owner] = self._blocks_of(doc_id, lang, question)
        found = self._find(owner, blocks, text)
        if found is None:
            self._append(owner, text, 0, len(text))
        else:
            block, start = found
            self._append(owner, blocks[block], start, start + len(text))

    def add_all(self, sentences: Iterable[Sentence]) -> None:
        for s in sentences:
            self.add(s.doc_id, s.lang, s.question, s.text)

    def take(self, other: Sentences, places: Iterable[int]) -> None:
        """Sentences of another index (of knowledge whose documents these are, with the same paragraphs)."""
        for at in places:
            owner = self._owner_number(other._owners[other._owner[at]])
            self._append(owner, other._sources[other._source[at]], other._start[at], other._end[at])

    def __len__(self) -> int:
        return len(self._owner)

    def done(self) -> Sentences:
        table = Sentences(self._owners, self._sources, self._owner, self._source, self._start, self._end)
        self._documents, self._blocks, self._owner_at, self._source_at, self._cursor = None, {}, {}, {}, {}
        return table

    def _owner_number(self, owner: Owner) -> int:
        number = self._owner_at.get(owner)
        if number is None:
            number = self._owner_at[owner] = len(self._owners)
            self._owners.append(owner)
        return number

    def _append(self, owner: int, source: str, start: int, end: int) -> None:
        place = self._source_at.get(id(source))
        if place is None:
            place = self._source_at[id(source)] = len(self._sources)
            self._sources.append(source)
        self._owner.append(owner)
        self._source.append(place)
        self._start.append(start)
        self._end.append(end)

    def _blocks_of(self, doc_id: str, lang: str, number: int) -> list[str]:
        """The block texts of a question (only the documents' map is made for all, not every question's)."""
        if self._documents is None:
            self._documents = {(doc.doc_id, doc.lang): doc for doc in self._knowledge.documents}
        doc = self._documents.get((doc_id, lang))
        question = doc.question(number) if doc is not None else None
        return [b.text for b in question.blocks] if question is not None else []

    def _find(self, owner: int, blocks: list[str], text: str) -> tuple[int, int] | None:
        """Where `text` is in `blocks`: after the last sentence found of this owner, then from the start of the
        blocks after it, of those before it, and of its own."""
        block, after = self._cursor.get(owner, (0, 0))
        tries = [(block, after), *((b, 0) for b in range(block + 1, len(blocks))), *((b, 0) for b in range(block)),
                 (block, 0)]
        for b, since in tries:
            start = blocks[b].find(text, since) if b < len(blocks) else -1
            if start >= 0:
                self._cursor[owner] = (b, start + len(text))
                return b, start
        return None
