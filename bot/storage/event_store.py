"""`EventStore`: the Slack events already handled, so that each is handled once whichever process or
replica receives it (Slack redelivers an event it thinks was lost)."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.storage.database import ConcernStore
from bot.storage.records import COUNT_ROWS, upsert
from bot.storage.tables import slack_events

EVENT_MEMORY = timedelta(days=1)  # event ids are kept this long: Slack stops redelivering long before


class EventStore(ConcernStore):
    def claim(self, event_id: str) -> bool:
        """True only the first time an event id is seen, whichever process or replica asks."""
        with self.database.writing() as conn:
            statement = upsert(conn, slack_events).values(event_id=event_id, received_at=self.database.clock())
            statement = statement.on_conflict_do_nothing(index_elements=["event_id"])
            return conn.execute(statement, execution_options=COUNT_ROWS).rowcount == 1

    def prune(self, older_than: datetime) -> int:
        """Forget event ids received before `older_than`; returns how many."""
        with self.database.writing() as conn:
            return conn.execute(slack_events.delete().where(slack_events.c.received_at < older_than)).rowcount
