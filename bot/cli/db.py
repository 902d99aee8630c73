"""`eksbot db upgrade|status`: database migrations, run once per release (or at start for SQLite)."""

from __future__ import annotations

import argparse

from bot.cli.common import settings_from_args


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from bot.storage import Store

    with Store(settings_from_args(args).database_url) as store:
        store.upgrade()
        print(f"database {store.url} at revision {store.revision()}")
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    from bot.storage import Store

    with Store(settings_from_args(args).database_url) as store:
        store.ping()
        print(f"database {store.url} reachable, revision {store.revision() or 'none (run: eksbot db upgrade)'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    db = sub.add_parser("db", help="database migrations").add_subparsers(
        dest="action", required=True, metavar="ACTION", help="upgrade or status")
    db.add_parser("upgrade", help="apply pending migrations (safe to run again)").set_defaults(func=cmd_db_upgrade)
    db.add_parser("status", help="is the database reachable, at which revision").set_defaults(func=cmd_db_status)
