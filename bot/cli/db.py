"""`eksbot db upgrade|status`: database migrations, run once per release (or at start for SQLite)."""

from __future__ import annotations

import argparse

from bot.cli.common import services_from_args


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    with services_from_args(args, migrate=False) as services:
        database = services.database
        database.upgrade()
        print(f"database {database.url} at revision {database.revision()}")
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    with services_from_args(args, migrate=False) as services:
        database = services.database
        database.ping()
        print(f"database {database.url} reachable, revision {database.revision() or 'none (run: eksbot db upgrade)'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    db = sub.add_parser("db", help="database migrations").add_subparsers(
        dest="action", required=True, metavar="ACTION", help="upgrade or status")
    db.add_parser("upgrade", help="apply pending migrations (safe to run again)").set_defaults(func=cmd_db_upgrade)
    db.add_parser("status", help="is the database reachable, at which revision").set_defaults(func=cmd_db_status)
