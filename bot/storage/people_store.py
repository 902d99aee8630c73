"""`PeopleStore`: each person's language, as they chose it (the SQL is in `preference_records`)."""

from __future__ import annotations

from bot.lang import Lang
from bot.storage import preference_records
from bot.storage.database import ConcernStore


class PeopleStore(ConcernStore):
    def language_of(self, team: str, user: str) -> Lang | None:
        """The language the person chose, if any."""
        with self.database.reading() as conn:
            return preference_records.load_language(conn, team, user)

    def set_language(self, team: str, user: str, lang: Lang) -> None:
        with self.database.writing() as conn:
            preference_records.save_language(conn, team, user, lang, self.database.clock())
