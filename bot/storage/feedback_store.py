"""`FeedbackStore`: 👍 / 👎 votes on answers, one per person per message (kept: they have no retention
period)."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa

from bot.errors import InputError
from bot.storage.database import ConcernStore
from bot.storage.records import COUNT_ROWS, upsert
from bot.storage.tables import feedback

VOTES = ("up", "down")


class FeedbackStore(ConcernStore):
    def record(self, user: str, team: str, message_key: str, doc_id: str, question: int, chunk_id: int | None,
               vote: str) -> bool:
        """One vote per person per message: a new vote or a changed one returns True, a repeat False."""
        if vote not in VOTES:
            raise InputError(f"vote must be one of {', '.join(VOTES)}, not {vote!r}")
        now = self.database.clock()
        with self.database.writing() as conn:
            statement = upsert(conn, feedback).values(
                team_id=team, user_id=user, message_key=message_key, doc_id=stored_doc_id(doc_id), question=question,
                chunk_id=chunk_id, vote=vote, created_at=now, updated_at=now,
            )
            statement = statement.on_conflict_do_update(
                index_elements=["team_id", "user_id", "message_key"],
                set_={"vote": statement.excluded.vote, "updated_at": statement.excluded.updated_at},
                where=feedback.c.vote != statement.excluded.vote,
            )
            return conn.execute(statement, execution_options=COUNT_ROWS).rowcount == 1

    def counts(self) -> dict[str, int]:
        """How many votes of each kind."""
        with self.database.reading() as conn:
            rows = conn.execute(sa.select(feedback.c.vote, sa.func.count()).group_by(feedback.c.vote))
            counts = {vote: int(n) for vote, n in rows}
        return {vote: counts.get(vote, 0) for vote in VOTES}


def stored_doc_id(doc_id: str) -> str:
    """A document id as the column holds it: whole when it fits, else its start and a digest of the whole. A
    doc page deep in a team's repository can have a longer path than the column; the value still names it
    alone."""
    limit = int(getattr(feedback.c.doc_id.type, "length", None) or len(doc_id))
    if len(doc_id) <= limit:
        return doc_id
    digest = hashlib.sha256(doc_id.encode()).hexdigest()[:32]
    return f"{doc_id[:limit - len(digest) - 1]}#{digest}"
