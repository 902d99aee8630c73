"""How the entry and note commands show what the database holds: aligned columns, times, counts and an entry's
one-line description. Lines that carry knowledge text go through `printable` before they reach the terminal."""

from __future__ import annotations

from datetime import datetime

from bot.cli.texts import printable
from bot.storage import EntryRecord


def describe_entry(record: EntryRecord) -> str:
    """`"Title" (doc, en, topic Quotas), version 2`; a quiz question names its answer; a deleted entry says so."""
    fields = record.fields
    about = [fields.kind, fields.lang]
    if fields.topic:
        about.append(f"topic {fields.topic}")
    if fields.options:
        about.append(f"answer {fields.answer}")
    deleted = ", deleted" if record.deleted else ""
    return printable(f'"{fields.title}" ({", ".join(about)}), version {record.version}{deleted}')


def columns(rows: list[list[str]]) -> list[str]:
    """Rows as aligned columns (the last one as long as it is)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
            for row in rows]


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else ""


def count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
