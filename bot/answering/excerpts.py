"""The excerpt of an answer: the explanation sentences (or table rows) of a quiz question closest to what
was asked, in the order the explanation gives them."""

from __future__ import annotations

import re
from functools import lru_cache
from sys import intern

import numpy as np

from bot.answering.units import Quote, choose, page_words
from bot.knowledge import KnowledgeBase, Question
from bot.knowledge.chunks import Chunk
from bot.lang import LANGUAGES
from bot.retrieval.artifacts import LoadedIndex
from bot.retrieval.hybrid import Retrieval, page_name
from bot.retrieval.sentence_groups import SentenceGroups
from bot.text.sentences import sentences
from bot.text.uncached import knowledge_tokens

EXCERPT_SENTENCES = 3
EXCERPT_MARGIN = 0.15  # sentences this far below the best one are left out
ROW_ORDER = 10_000  # table rows come after the explanation's sentences
MAX_ITEMS = 3  # list items quoted after a sentence that introduces the list
TEXTS_KEPT = 8192  # sentences and rows whose terms are kept once read
_OPTION_NOTE = re.compile(r"^([A-Z])\)\s")  # "C) capacity-type: spot: ..." explains an option


class Excerpts:
    """Per question and edition: its sentences and table rows, and what each sentence that ends with a colon
    introduces."""

    def __init__(self, index: LoadedIndex, sentences: SentenceGroups | None = None,
                 previous: Excerpts | None = None) -> None:
        """`previous`: the excerpts of an earlier index, whose reading of what the sentences of unchanged
        questions introduce is reused."""
        self._index = index
        self._groups = sentences or SentenceGroups.of(index)  # each edition's vectors together (a view)
        # Each table's rows by question and edition; a sentence's or row's terms are read when it is a
        # candidate (`_terms_of`): reading every sentence's beforehand cost memory and time at each change, in
        # proportion to the whole knowledge, for the few questions an answer cites.
        self._rows_of: dict[tuple[str, int, str], list[Chunk]] = {}
        for c in index.chunks:
            if c.kind == "table_row":
                self._rows_of.setdefault((c.doc_id, c.question, c.lang), []).append(c)
        self._follows_in: dict[int, tuple[Question, list[tuple[str, Follows]]]] = {}  # by the question's id()
        self._pages: dict[tuple[str, str], frozenset[str]] = {}  # each page's common terms, by page and edition
        self._follows = self._what_follows(index.knowledge, previous._follows_in if previous is not None else {})

    def _what_follows(self, knowledge: KnowledgeBase, known: dict[int, tuple[Question, list[tuple[str, Follows]]]]
                      ) -> dict[tuple[str, int, str, str], Follows]:
        """For each sentence that ends with a colon, per question and language it is read in: what it
        introduces. A question an earlier index read (the same object: its document did not change) is not
        read again."""
        out: dict[tuple[str, int, str, str], Follows] = {}
        for lang in LANGUAGES:
            for question in knowledge.questions(lang, kind=None):
                found = self._follows_in.get(id(question)) or known.get(id(question))
                if found is None or found[0] is not question:
                    found = (question, _follows_in(question))
                self._follows_in[id(question)] = found
                for sentence, follows in found[1]:
                    out[(question.doc_id, question.number, lang, sentence)] = follows
        return out

    def quote(self, question: Question, vector: np.ndarray, retrieval: Retrieval) -> Quote:
        """What an answer quotes of a quiz question (its excerpt; the snippet is the best code block) or of a
        document's section (its best unit, `bot.answering.units`, with the code block that goes with it)."""
        if not question.path:
            return Quote(self.excerpt(question, vector, retrieval), None)
        key = (question.doc_id, question.number, question.lang)
        ids, vectors = self._groups.of_edition(key)
        sentence_sims: dict[str, float] = {}
        if ids:
            # A Spanish question about a page written in English: read against the question said in English too.
            sims = retrieval.cosines(vectors, english_only=question.lang == "en")
            for i, sim in zip(ids, sims, strict=True):
                text = self._index.sentences.text(i)
                sentence_sims[text] = max(float(sim), sentence_sims.get(text, -1.0))
        code_sims: dict[int, float] = {}
        row_sims: dict[str, float] = {}
        section = (question.doc_id, question.number)
        chunk_ids = retrieval.chunks_of(section) if retrieval.chunks_of else [
            c.id for c in self._index.chunks if (c.doc_id, c.question) == section]
        for i in chunk_ids:
            chunk = self._index.chunks[i]
            if chunk.lang != question.lang:
                continue
            if chunk.kind == "code":
                code_sims[chunk.line] = max(float(retrieval.chunk_dense[i]), code_sims.get(chunk.line, -1.0))
            elif chunk.kind == "table_row":
                row_sims[chunk.text] = float(retrieval.chunk_dense[i])
        return choose(question, retrieval.analysis, sentence_sims, code_sims, row_sims, self._page_words(question))

    def _page_words(self, question: Question) -> frozenset[str]:
        """The terms most sections of the question's page use, read once per page and edition (an index's
        knowledge never changes: a new one gets new excerpts)."""
        key = (question.doc_id, question.lang)
        found = self._pages.get(key)
        if found is None:
            document = self._index.knowledge.editions(question.doc_id).get(question.lang)
            found = self._pages[key] = page_words(
                document.questions, page_name(question.doc_id) if document.kind == "doc" else ""
            ) if document is not None else frozenset()
        return found

    def excerpt(self, question: Question, vector: np.ndarray, retrieval: Retrieval) -> str:
        """The explanation sentences (or table rows) closest to the question, in document order.

        A sentence that introduces a list or a table ("…across stages:") brings the list's first items
        or the table's closest row; one that introduces code ends with a full stop (the snippet follows).
        Notes on wrong options ("C) capacity-type: spot: …") are never quoted as the answer.
        """
        key = (question.doc_id, question.number, question.lang)
        ids, vectors = self._groups.of_edition(key)
        terms = set(retrieval.analysis.search_terms(question.lang))
        candidates: list[tuple[float, int, str]] = []
        if ids:
            sims = vectors @ vector
            for order, (i, sim) in enumerate(zip(ids, sims, strict=True)):
                sentence = self._index.sentences.text(i)
                note = _OPTION_NOTE.match(sentence)
                if note and note.group(1) != question.answer:
                    continue
                score = float(sim) + _overlap(terms, _terms_of(sentence, question.lang))
                candidates.append((score, order, sentence))
        rows: dict[int, list[tuple[float, int, str]]] = {}  # per table (its line): scored rows
        for c in self._rows_of.get(key, []):
            score = float(retrieval.chunk_dense[c.id]) + _overlap(terms, _terms_of(c.text, c.lang))
            row = (score, ROW_ORDER + c.id, _row_sentence(c))
            candidates.append(row)
            rows.setdefault(c.line, []).append(row)
        if not candidates:
            return question.answer_line
        ordered = sorted(candidates, reverse=True)
        top_score = ordered[0][0]
        best: list[tuple[float, int, str]] = []
        rows_taken = 0
        for candidate in ordered:
            if len(best) == EXCERPT_SENTENCES or candidate[0] < top_score - EXCERPT_MARGIN:
                break
            is_row = candidate[1] >= ROW_ORDER
            if is_row and rows_taken:
                continue  # rows of one table look alike: the best one says it
            rows_taken += is_row
            best.append(candidate)
        # The lead sentence states the point of the explanation: add it when it is close.
        lead = min(candidates, key=lambda c: c[1])
        if lead not in best and lead[0] >= top_score - EXCERPT_MARGIN:
            best = [*best[: EXCERPT_SENTENCES - 1], lead]
        chosen = sorted(best, key=lambda c: c[1])
        quoted = {sentence for _, _, sentence in chosen}
        parts: list[str] = []
        for _, _, sentence in chosen:
            if not sentence.rstrip().endswith(":"):
                parts.append(_as_sentence(sentence))
                continue
            follows = self._follows.get((*key, sentence))
            if follows is not None and follows[0] == "list":
                items = [item for item in follows[1] if item not in quoted][:MAX_ITEMS]
                quoted.update(items)
                if items:
                    parts.append(sentence.rstrip() + " " + "; ".join(i.rstrip(".:;") for i in items) + ".")
                    continue
            elif follows is not None and follows[0] == "table" and rows.get(int(follows[1][0])):
                closest = max(rows[int(follows[1][0])])
                if closest[2] not in quoted:
                    quoted.add(closest[2])
                    parts.append(sentence.rstrip() + " " + _as_sentence(closest[2]))
                    continue
            parts.append(sentence.rstrip().rstrip(":") + ".")
        seen: set[str] = set()
        return " ".join(p for p in parts if not (p in seen or seen.add(p)))  # type: ignore[func-returns-value]


@lru_cache(maxsize=TEXTS_KEPT)
def _terms_of(text: str, lang: str) -> tuple[str, ...]:
    """The distinct terms of a sentence or row (a tuple: a third of a set's memory), kept here only."""
    return tuple(dict.fromkeys(intern(t) for t in knowledge_tokens(text, lang)))


def _overlap(terms: set[str], sentence_terms: tuple[str, ...]) -> float:
    """Half a point for a sentence holding every word of the question."""
    if not terms:
        return 0.0
    return 0.5 * len(terms.intersection(sentence_terms)) / len(terms)


def _row_sentence(chunk: Chunk) -> str:
    return chunk.text.replace("; ", " · ")


def _as_sentence(text: str) -> str:
    text = text.strip()
    return text if re.search(r"[.!?)]$", text) else text.rstrip(":") + "."


Follows = tuple[str, tuple[str, ...]]  # ("list", its items), ("table", (its line,)) or ("code", ())


def _follows_in(question: Question) -> list[tuple[str, Follows]]:
    """For each sentence of the question that ends with a colon: what it introduces."""
    out: list[tuple[str, Follows]] = []
    blocks = question.blocks
    for index, block in enumerate(blocks):
        if block.kind not in ("text", "list"):
            continue
        items = sentences(block.text)
        for position, sentence in enumerate(items):
            if not sentence.endswith(":"):
                continue
            rest = items[position + 1 :]
            rest = rest[: next((i for i, item in enumerate(rest) if item.endswith(":")), len(rest))]
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            if rest:
                out.append((sentence, ("list", tuple(rest))))
            elif following is None:
                continue
            elif following.kind == "list":
                listed = sentences(following.text)
                out.append((sentence, ("list", tuple(listed[: next(
                    (i for i, item in enumerate(listed) if item.endswith(":")), len(listed))]))))
            elif following.kind == "table":
                out.append((sentence, ("table", (str(following.line),))))
            elif following.kind == "code":
                out.append((sentence, ("code", ())))
    return out
