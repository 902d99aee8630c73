"""`eksbot gaps`: the knowledge gaps, most frequent first, for whoever maintains the knowledge.

Reads the database the settings name (no model is loaded). `--prune` first forgets the gaps not seen
within EKSBOT_GAPS_RETENTION_DAYS (the server also does it every hour).
"""

from __future__ import annotations

import argparse
import json

from rich.markup import escape
from rich.table import Table

from bot.cli.common import services_from_args
from bot.cli.texts import report_console
from bot.errors import InputError
from bot.storage.gap_records import KINDS


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("gaps", help="the questions the bot did not answer, terms it did not cover, answers "
                                         "that got a thumbs-down")
    parser.add_argument("--kind", choices=KINDS, help="only this kind")
    parser.add_argument("--limit", type=int, default=50, help="how many groups (default 50)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--prune", action="store_true", help="first forget the gaps past the retention period")
    parser.set_defaults(func=cmd_gaps)


def cmd_gaps(args: argparse.Namespace) -> int:
    with services_from_args(args) as services:
        settings = services.settings
        if args.limit < 1:
            raise InputError("--limit must be at least 1")
        pruned = services.gaps.prune() if args.prune else 0
        rows = services.gaps.listing(limit=args.limit, kind=args.kind)
    if args.json:
        for row in rows:
            print(json.dumps(row.to_dict(), ensure_ascii=False))
        return 0
    table = Table(title=f"Knowledge gaps, last {settings.gaps_retention_days} days, most frequent first")
    for column in ("count", "kind", "lang", "question or term", "quiz question", "last seen"):
        table.add_column(column)
    for row in rows:
        text = row.text if row.example is None else f"{row.text}  (e.g. {row.example})"
        table.add_row(str(row.count), row.kind, row.lang, escape(text), str(row.question or ""),
                      row.last_seen.strftime("%Y-%m-%d %H:%M"))
    console = report_console()
    console.print(table)
    if not settings.record_gaps:
        console.print("Recording is off (EKSBOT_RECORD_GAPS=false): nothing new is added.")
    if args.prune:
        console.print(f"{pruned} gap(s) past the retention period forgotten.")
    return 0
