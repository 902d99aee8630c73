"""The shape of a question: a definition ("what is X?"), a comparison, and where it goes on to another."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

from bot.reading.rules import DefinitionRules, clause_cut, definition_rules, part_opening, points_back
from bot.text.identifiers import QUERY_WORD
from bot.text.normalise import fold, strip_accents

QUESTION_END = re.compile(r"\?+(?=\s*\S)|\?+\s*$")
# Where one question of a message ends and another may start: a run of question marks, from its first (a
# match tried inside a run would read the rest of it again, in the square of its length).
QUESTION_CUT = re.compile(r"(?<!\?)\?+(?=\s+\S)")
SENTENCE_END = re.compile(r"[?!;¿]|[.:](?=\s)")  # where a sentence ends ("p5.48xlarge" ends none)
SENTENCE_REACH = 80  # characters read back from a question joined on, for the words before it in its sentence
PART_WORDS = 3  # a part of fewer words is no question of its own ("¿y en p5?"): it goes with the one before
# A message of more questions than this is read whole: each part is searched and judged (one more pass of the
# model each), and a person asks two or three at a time, where a list of questions is a survey.
MOST_PARTS = 4


class Definition(NamedTuple):
    """What a "what is X?" question asks about: the folded words of X (empty for any other question), and
    whether it asks what X does ("what does X do?", "¿qué hace X?"), which a sentence that starts with X and
    goes on to say anything of it answers, where "what is X?" needs one that says what X is."""

    subject: frozenset[str]
    acts: bool


def read_definition(question: str) -> Definition:
    """The definition a question asks for ("what is X?", "what does X mean?", "what does X do?"); an X of more
    than four words names no one thing. Words that only soften the asking ("what *exactly* is X?", "¿qué es
    *realmente* X?") are read past."""
    shapes = definition_rules()  # the patterns of bot/data/rules/<lang>.yaml, `definitions`
    # Runs of spaces as one: the patterns put optional spaces side by side (`\s*,?\s*`), which a backtracking
    # engine tries in the square (or cube) of a run's length; a cleaned question has no runs anyway.
    plain = shapes.hedges.sub("", " ".join(strip_accents(question).split()))
    for acts, patterns in ((False, shapes.meaning), (True, shapes.acting), (False, (shapes.definition,))):
        for pattern in patterns:
            match = pattern.match(plain)
            if match:
                subject = _subject(match, shapes)
                return Definition(subject, acts and bool(subject))
    return Definition(frozenset(), False)


def definition_subject(question: str) -> frozenset[str]:
    """The folded words of X in "what is X?"; empty for any other question (`read_definition`)."""
    return read_definition(question).subject


def _subject(match: re.Match[str], shapes: DefinitionRules) -> frozenset[str]:
    found = match.groupdict()
    subject = shapes.qualifier_tail.sub("", found.get("subject") or found.get("first") or "").strip()
    if not subject or shapes.purpose.search(subject) or fold(subject.split()[0]) in shapes.not_a_subject:
        return frozenset()  # "what is X for?", "what's the difference between…": not a definition
    wanted = frozenset(fold(w) for w in QUERY_WORD.findall(subject))
    return wanted if len(wanted) <= 4 else frozenset()


def opens_pointing_back(sentence: str) -> bool:
    """Whether a sentence opens with a word that points back to what came before it ("This will create a cluster
    …", "Esto crea…"): a document's sentence that says something of what it follows."""
    words = [m.group(0) for m in QUERY_WORD.finditer(fold(sentence))]
    return bool(words) and points_back(words, 0)


def referred_to_later(tokens: Sequence[str], segments: Sequence[int], segment: int) -> bool:
    """Whether a later sentence or question of the message refers back with a pronoun, so what
    `segment` names is what the rest asks about (`tokens` lowercased and folded)."""
    words = list(tokens)
    return any(segments[i] > segment and points_back(words, i) for i in range(len(words)))


def question_parts(text: str) -> list[str]:
    """The questions a message asks one after another ("¿qué variable activa EFA en NCCL? y ¿cómo hago que
    Karpenter no reparta los nodos en varias zonas?"), each up to its question mark. What follows the last one
    without a question mark of its own ("Es para el informe") goes with the last; a part that points back to
    what an earlier one names ("¿Lo puedo quitar?") or has fewer than `PART_WORDS` words, with the one before.
    A question joined on ("What does slurmdbd do, and how should we back up its MariaDB?", "… ok. But when a node
    dies, how does the job resume?": `clause_cut`) is a part of its own though it points back to what the first
    names: read alone, it is what the knowledge may not answer, and the first is answered alone. Not when what
    comes before it in its sentence is a few words ("¿Cuántas réplicas y qué tamaño…?" asks one question of two
    things). A part is read without the word that joins it on ("y ¿cómo…?"). One part, the whole message, when it
    asks one question, or more than `MOST_PARTS`."""
    asked = text.rfind("?")  # a question joined on is asked: a "?" comes after it
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    clauses = {m.start() for m in clause_cut().finditer(text, 0, max(asked, 0))
               if not 0 < _words_before(text, ends, m.start()) < PART_WORDS}
    cuts = sorted({m.end() for m in QUESTION_CUT.finditer(text)} | clauses)
    pieces = [(text[a:b].strip(), a in clauses) for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)
              if text[a:b].strip()]
    parts: list[str] = []
    for piece, joined in pieces:  # each ends at its question mark or where a question is joined on
        tokens = QUERY_WORD.findall(fold(piece))
        asks = "?" in piece
        if parts and (not asks or len(tokens) < PART_WORDS or (not joined and any(
                points_back(tokens, j) for j in range(len(tokens))))):
            parts[-1] = f"{parts[-1]} {piece}"
        elif tokens:
            parts.append(part_opening().sub("", piece) or piece)
    return parts if 1 < len(parts) <= MOST_PARTS else [text]


def _words_before(text: str, ends: list[int], at: int) -> int:
    """The words before `at` in its sentence (from the last of `ends`, where sentences end, before it), counted
    over the last `SENTENCE_REACH` characters at most: enough to tell a few words from a question's worth."""
    start = ends[i - 1] if (i := bisect_right(ends, at)) else 0
    return len(QUERY_WORD.findall(fold(text[max(start, at - SENTENCE_REACH):at])))
