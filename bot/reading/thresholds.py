"""The thresholds the reading of a question shares, in one place.

"Specific enough to be what a question is about" and "pins a subject down" were each written in several
modules; they are one notion each, read from here. The fitted weights of the decision itself are data
(`bot/data/answerability.json`, `eksbot calibrate`); the word classes and patterns are data too
(`bot/data/rules/<lang>.yaml`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    # A word at least this specific (`bot.reading.terms`: 0 for "how", 1 for "IRSA") can be the subject of a
    # question: what the knowledge misses, what makes a question related, what a pasted log is evidence of,
    # what "the X question" names, what a follow-up is about.
    specific: float = 0.5
    # A known word used by at most this many questions or sections pins one of them down: beside it, an unknown
    # name is an aside ("MPIJob or PyTorchJob?").
    pins_down: int = 4
    # A follow-up's known word used by at most this many questions is a subject of its own, not a word that
    # leans on the earlier turns. Stricter than `pins_down` on purpose: as loose as it, a follow-up that leans
    # on a known word loses its earlier turns' subject (docs/quality.md, Follow-ups).
    names_a_subject: int = 2


THRESHOLDS = Thresholds()
