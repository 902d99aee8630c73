"""Which quiz questions explain what a thing is, and which only mention it in passing.

"What is AWS?" finds "AWS Trainium chips" in a list, and "What is a StatefulSet?" a table cell: words
in common, but nothing that says what the thing is. A question of the knowledge *defines* X when

- its topic or its correct answer is mostly X: X's words make up at least half of it, or of its part in
  parentheses ("Gang scheduling with Volcano", "3D parallelism (DP + TP + PP)", "Mixed precision (BF16)"),
  but not "Number of MPI processes per worker" for MPI; or
- one of its sentences, list items or table rows starts with X (after at most one other word, such
  as "NVIDIA BioNeMo") and goes on to say what X is or does: "X is…", "X: …", "X (also called Y) …",
  "X, which…", "X splits…". "Y" in parentheses right after X counts as X too.

The verbs that say what X is and the words of an alias are data (`bot/data/rules/<lang>.yaml`,
`defining_sentences`). This reads the knowledge's sentences; the question's X is read by `bot.reading`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from sys import intern

from bot.knowledge import KnowledgeBase
from bot.lang import LANGUAGES
from bot.reading.rules import alias_words, defining_verbs
from bot.reading.terms import QueryWord
from bot.retrieval.artifacts import LoadedIndex
from bot.retrieval.hybrid import QuestionKey
from bot.retrieval.sentence_groups import SentenceGroups
from bot.text.identifiers import WORD_PATTERN
from bot.text.normalise import fold, strip_accents
from bot.text.tokens import ALL_STOPWORDS, word_terms

_TOKEN = re.compile(WORD_PATTERN + r"|[(:,—)]")  # words, and the punctuation that sets a definition off
_PUNCTUATION = frozenset("(:,—)")
_PARENTHESES = re.compile(r"\(([^()]*)\)")
_EXPLAINING_MARKS = frozenset(":(,—")  # the punctuation that introduces what a term is, beside the verbs
KEYS_KEPT = 4096  # questions whose definitions are kept once read
HEAD_SLACK = 1  # words allowed before the term at the start of a sentence ("NVIDIA BioNeMo is...")


@dataclass(frozen=True, slots=True)
class _Lead:
    """The first words of a sentence, as index terms, with what follows them."""

    terms: tuple[frozenset[str], ...]  # each word's index terms (both languages' stems)
    next_token: tuple[str, ...]  # the token after each word (folded), "" at the end


class Definitions:
    """Per question: its topic and answer, and its sentences, rows and list items, read when a "what is X?"
    asks about that question (the leads of a few dozen sentences, nothing an answer notices), and remembered
    for the questions asked about most. Reading every question's leads beforehand cost memory and time at each
    change, in proportion to the whole knowledge, for the few questions a "what is X?" ever ranks first."""

    def __init__(self, texts: Iterable[tuple[object, str, str]] | Callable[[object], list[str]],
                 names: Iterable[tuple[object, str]] | Callable[[object], list[str]],
                 previous: Definitions | None = None) -> None:
        """`texts`: (question key, kind, text) with kind "sentence" or "row" (a table row's first cell), or a
        function giving a question's texts when it is asked about; `names`: (question key, text) for topics and
        correct answers, which define what they name, or a function giving a question's; `previous`: the
        definitions of an earlier knowledge (nothing of it is needed: each is read when asked)."""
        del previous
        # The cache holds the texts, not `self`: a cache of a bound method would make a cycle, and a replaced
        # knowledge's definitions would wait for the cycle collector instead of going with their assistant.
        self._read = lru_cache(maxsize=KEYS_KEPT)(partial(_read_key, _by_key(texts), _by_key(names)))

    @classmethod
    def of_index(cls, index: LoadedIndex, sentences: SentenceGroups, chunks_of: Callable[[QuestionKey], list[int]],
                 previous: Definitions | None = None) -> Definitions:
        """What each quiz question explains: its topic, its correct answer, and the leads of its sentences
        (`sentences`: where each edition's are) and table rows (a row's first cell is what the row explains;
        `chunks_of`: a question's chunks), read when a "what is X?" asks about it."""
        return cls(partial(_texts_of, index, sentences, chunks_of), partial(_names_of, index.knowledge), previous)

    def defines(self, key: object, subject: Sequence[QueryWord], *, acts: bool = False) -> bool:
        """Whether the question `key` explains what `subject` (the X of "what is X?") is; with `acts` ("what does
        X do?"), a sentence that starts with X and goes on with any word says it ("X waits for every pod")."""
        if not subject:
            return False
        wanted = [terms for w in subject for terms in _word_terms(w)]
        names, leads = self._read(key)
        for name in names:
            if len(name) <= 2 * len(wanted) and all(any(terms & word for word in name) for terms in wanted):
                return True
        return any(_lead_defines(lead, wanted, acts) for lead in leads)


def _by_key(pairs: Iterable[tuple[object, ...]] | Callable[[object], list[str]]) -> Callable[[object], list[str]]:
    """A question's texts: from a function, or from (key, ..., text) tuples listed beforehand."""
    if callable(pairs):
        return pairs
    listed: dict[object, list[str]] = {}
    for key, *_, text in pairs:
        listed.setdefault(key, []).append(str(text))
    return partial(_listed, listed)


def _listed(texts: dict[object, list[str]], key: object) -> list[str]:
    return texts.get(key, [])


def _names_of(knowledge: KnowledgeBase, key: object) -> list[str]:
    """The topic and correct answer of a question, in each language's edition (or the one there is)."""
    if not isinstance(key, tuple):
        return []
    out: list[str] = []
    for lang in LANGUAGES:
        try:
            q = knowledge.question(key[0], key[1], lang)
        except KeyError:
            return []
        option = q.correct_option
        out += [q.topic] if q.topic else []
        out += [option.text] if option else []
    return out


def _texts_of(index: LoadedIndex, sentences: SentenceGroups, chunks_of: Callable[[QuestionKey], list[int]],
              key: object) -> list[str]:
    """A question's sentences (every edition's) and the first cells of its table rows."""
    if not isinstance(key, tuple):
        return []
    doc_id, number = key
    key = (doc_id, number)
    out = [index.sentences.text(i) for lang in LANGUAGES for i in sentences.editions.get((doc_id, number, lang), ())]
    chunks = index.chunks
    out += [chunks[i].text.split("; ")[0].split(": ", 1)[-1] + ":"
            for i in chunks_of(key) if chunks[i].kind == "table_row"]
    return out


def _read_key(texts: Callable[[object], list[str]], names_of: Callable[[object], list[str]], key: object
              ) -> tuple[list[list[frozenset[str]]], list[_Lead]]:
    """The words of each of a question's names (as index terms), and the leads of its texts."""
    names = [words for text in names_of(key) for words in _name_words(text)]
    leads = [lead for text in texts(key) for lead in _leads(text)]
    return names, leads


def _name_words(text: str) -> tuple[list[frozenset[str]], ...]:
    """A topic's or answer's words, as index terms: the whole of it, and each part in parentheses."""
    out: list[list[frozenset[str]]] = []
    for part in [_PARENTHESES.sub(" ", text), *_PARENTHESES.findall(text)]:
        words = [_terms_of_word(w) for w in _TOKEN.findall(strip_accents(part))
                 if w not in _PUNCTUATION and fold(w) not in ALL_STOPWORDS]
        if words:
            out.append(words)
    return tuple(out)


def _lead_defines(lead: _Lead, wanted: list[frozenset[str]], acts: bool = False) -> bool:
    n = len(wanted)
    for start in range(min(HEAD_SLACK + 1, len(lead.terms))):
        span = lead.terms[start : start + n]
        if len(span) < n:
            return False
        if all(any(w & t for t in span) for w in wanted):
            follower = lead.next_token[start + n - 1]
            if follower in _EXPLAINING_MARKS or follower in defining_verbs() or follower == "" or (
                    acts and follower.isalpha()):
                return True
    return False


def _leads(text: str) -> Iterable[_Lead]:
    """The lead of `text`, and the lead of an alias in parentheses right after its first words."""
    tokens = _TOKEN.findall(strip_accents(text))
    words: list[tuple[int, str]] = [
        (i, t) for i, t in enumerate(tokens) if t not in _PUNCTUATION and fold(t) not in ALL_STOPWORDS
    ]
    if not words:
        return
    yield _lead_of(tokens, words[: HEAD_SLACK + 4])
    # "Gradient checkpointing (also called activation checkpointing) trades…"
    for position, (i, _t) in enumerate(words[: HEAD_SLACK + 3]):
        if i + 1 < len(tokens) and tokens[i + 1] == "(":
            close = next((j for j in range(i + 2, len(tokens)) if tokens[j] == ")"), None)
            if close is None:
                break
            inside = [(j, t) for j, t in enumerate(tokens[i + 2 : close], start=i + 2)
                      if t not in _PUNCTUATION and fold(t) not in ALL_STOPWORDS | alias_words()]
            if inside:
                alias = _lead_of(tokens, inside)
                # The alias explains the same thing as the words before it: what follows the ")".
                follower = fold(tokens[close + 1]) if close + 1 < len(tokens) else ""
                yield _Lead(alias.terms, (*alias.next_token[:-1], follower or ":"))
            del position
            break


def _lead_of(tokens: list[str], words: list[tuple[int, str]]) -> _Lead:
    terms = tuple(_terms_of_word(t) for _, t in words)
    following = tuple(intern(fold(tokens[i + 1])) if i + 1 < len(tokens) else "" for i, _ in words)
    return _Lead(terms, following)


_WORD_TERMS: dict[str, frozenset[str]] = {}  # the terms of a word as written, one set however often it is
WORDS_KEPT = 200_000


def _terms_of_word(word: str) -> frozenset[str]:
    """`_content_terms` of a word, the same set for every sentence that has it."""
    found = _WORD_TERMS.get(word)
    if found is None:
        if len(_WORD_TERMS) >= WORDS_KEPT:
            _WORD_TERMS.clear()
        found = _WORD_TERMS[word] = frozenset(_content_terms(word))
    return found


def _content_terms(text: str) -> set[str]:
    return {
        word[0] for lang in LANGUAGES for word in word_terms(text, lang, ALL_STOPWORDS)
    }


def _word_terms(word: QueryWord) -> list[frozenset[str]]:
    """The terms to look for, per word: a compound read as one ("Hugging Face") is looked for word by word."""
    parts = word.text.split()
    if len(parts) > 1:
        return [frozenset(_content_terms(part) | {fold(part)}) for part in parts]
    return [frozenset(form[0] for forms in word.forms.values() for form in forms if form)]
