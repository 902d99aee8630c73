"""Knowledge gaps: what the bot could not answer, for whoever maintains the knowledge.

Three kinds of entries, straight from the answers:

- "unanswered": a question the bot said it does not know;
- "uncovered": a term of a partly answered question that the knowledge never mentions ("PyTorchJob"),
  with the question it came from and the quiz question the answer cited;
- "downvoted": a question whose answer got 👎, with the quiz question the answer cited.

Near-identical entries count together: the same kind and language, and the same content words (stemmed,
without stop words, in any order: `bot.reading.keys`) or nearly the same (see `bot.storage.gap_records`).
Nothing identifies who asked: no user id, no channel. Entries are kept `EKSBOT_GAPS_RETENTION_DAYS` days
after they were last seen (`prune`, run by the services' hourly retention pass and by `eksbot gaps --prune`,
also while recording is off), and none are recorded with `EKSBOT_RECORD_GAPS=false`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from bot.config import Settings
from bot.lang import Lang
from bot.reading.keys import words_key
from bot.reading.markup import clean_question
from bot.storage import GapRecord, GapStore
from bot.text.normalise import shortened

if TYPE_CHECKING:  # types only: recording needs no model
    from bot.answering.assistant import Answer

TEXT_CHARS = 500  # a question is stored at most this long


class KnowledgeGaps:
    """Records gaps as answers are given and lists them, most frequent first; `prune` forgets old ones."""

    def __init__(self, store: GapStore, *, enabled: bool = True, retention_days: int = 90,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.enabled = enabled
        self.retention = timedelta(days=retention_days)
        self.clock = clock

    @classmethod
    def from_settings(cls, store: GapStore, settings: Settings) -> KnowledgeGaps:
        """Recording on or off and the retention period as the settings say (`EKSBOT_RECORD_GAPS`,
        `EKSBOT_GAPS_RETENTION_DAYS`)."""
        return cls(store, enabled=settings.record_gaps, retention_days=settings.gaps_retention_days)

    def shows_gap(self, answer: Answer) -> bool:
        """Whether recording `answer` would record anything: a question not answered, or terms not covered."""
        return self.enabled and (not answer.answered or bool(answer.uncovered))

    def record_answer(self, question: str, answer: Answer) -> None:
        """The gaps an answer shows: the question when not answered, else each term it does not cover."""
        if not self.shows_gap(answer):
            return
        text = _stored(question)
        if not text:
            return
        if not answer.answered:
            self.store.add(kind="unanswered", lang=answer.language, key=words_key(text, answer.language), text=text)
        else:
            # A quiz question by its number; a document's section has no number a maintainer could use.
            cited = answer.citations[0].question if answer.citations and not answer.citations[0].section else None
            for term in answer.uncovered:
                self.store.add(kind="uncovered", lang=answer.language, key=words_key(term, answer.language),
                               text=term, example=text, question=cited)

    def record_downvote(self, question: str, *, cited: int, lang: Lang, section: str = "") -> None:
        """An answer citing quiz question `cited` (or a document's `section`) got 👎 (the question it answered,
        as read)."""
        if section:
            self._record_section_downvote(question, section, lang)
            return
        if not self.enabled:
            return
        text = _stored(question) or f"#{cited}"
        self.store.add(kind="downvoted", lang=lang, key=f"#{cited} {words_key(text, lang)}", text=text,
                       question=cited)

    def _record_section_downvote(self, question: str, section: str, lang: Lang) -> None:
        if not self.enabled:
            return
        text = _stored(question) or section
        self.store.add(kind="downvoted", lang=lang, key=f"{section} {words_key(text, lang)}", text=text,
                       example=section)

    def listing(self, *, limit: int = 50, kind: str | None = None) -> list[GapRecord]:
        """The gaps seen within the retention period, the most frequent first."""
        return self.store.listing(since=self.clock() - self.retention, limit=limit, kind=kind)

    def prune(self) -> int:
        """Forget the gaps not seen within the retention period; returns how many."""
        return self.store.prune(self.clock() - self.retention)


def _stored(question: str) -> str:
    text = clean_question(question)
    return shortened(text, TEXT_CHARS)
