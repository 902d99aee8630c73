"""Knowledge gaps as stored: one row per group of near-identical entries, counted, with no user id.

An entry joins the group with the same key (kind, language and normalised words), or else the group
whose words it shares most, when they overlap enough (Jaccard over the key's words); else it starts one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from bot.lang import Lang
from bot.storage.records import upsert
from bot.storage.tables import knowledge_gaps

KINDS = ("unanswered", "uncovered", "downvoted")
NEAR = 0.6  # the words of two keys overlap this much (Jaccard): the same gap
CANDIDATES = 2000  # the most recently seen groups an entry is compared with


@dataclass(frozen=True)
class GapRecord:
    kind: str  # "unanswered", "uncovered" or "downvoted"
    lang: Lang
    text: str  # the question (unanswered, downvoted) or the term the knowledge never mentions (uncovered)
    example: str | None  # a question it came from (uncovered), the latest one
    question: int | None  # the quiz question the answer cited (uncovered, downvoted)
    count: int
    first_seen: datetime
    last_seen: datetime
    id: int = 0  # the group's id: what "answer this gap" names

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind, "lang": self.lang, "text": self.text, "example": self.example,
            "question": self.question, "count": self.count, "first_seen": self.first_seen.isoformat(),
            "last_seen": self.last_seen.isoformat(), "id": self.id,
        }


def add_entry(conn: sa.Connection, *, kind: str, lang: Lang, key: str, text: str, example: str | None,
              question: int | None, now: datetime) -> None:
    """Count an entry in its group (the same key, else a near one), or start a group."""
    table = knowledge_gaps
    same = (table.c.kind == kind) & (table.c.lang == lang)
    rows = conn.execute(
        sa.select(table.c.id, table.c.group_key).where(same).order_by(table.c.last_seen.desc()).limit(CANDIDATES)
    ).all()
    words = set(key.split())
    best: tuple[float, int] | None = None
    for row in rows:
        overlap = 1.0 if row.group_key == key else _jaccard(words, set(row.group_key.split()))
        if overlap >= NEAR and (best is None or overlap > best[0]):
            best = (overlap, row.id)
    if best is not None:
        conn.execute(table.update().where(table.c.id == best[1]).values(
            text=text, last_seen=now, count=table.c.count + 1,
            example=sa.func.coalesce(example, table.c.example), question=sa.func.coalesce(question, table.c.question),
        ))
        return
    statement = upsert(conn, table).values(
        kind=kind, lang=lang, group_key=key, text=text, example=example, question=question, count=1,
        first_seen=now, last_seen=now,
    )
    conn.execute(statement.on_conflict_do_update(  # another process started the same group meanwhile
        index_elements=["kind", "lang", "group_key"],
        set_={"text": statement.excluded.text, "last_seen": statement.excluded.last_seen,
              "count": table.c.count + 1,
              "example": sa.func.coalesce(statement.excluded.example, table.c.example),
              "question": sa.func.coalesce(statement.excluded.question, table.c.question)},
    ))


def load_gaps(conn: sa.Connection, *, since: datetime, limit: int, kind: str | None = None) -> list[GapRecord]:
    """Groups seen since `since`, the most frequent first (then the latest)."""
    table = knowledge_gaps
    query = sa.select(table).where(table.c.last_seen >= since, table.c.answered_by.is_(None))
    if kind is not None:
        query = query.where(table.c.kind == kind)
    query = query.order_by(table.c.count.desc(), table.c.last_seen.desc(), table.c.id).limit(limit)
    return [
        GapRecord(kind=row.kind, lang=row.lang, text=row.text, example=row.example, question=row.question,
                  count=int(row._mapping["count"]), first_seen=row.first_seen, last_seen=row.last_seen, id=row.id)
        for row in conn.execute(query)
    ]


def prune_gaps(conn: sa.Connection, older_than: datetime) -> int:
    return conn.execute(knowledge_gaps.delete().where(knowledge_gaps.c.last_seen < older_than)).rowcount


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0

