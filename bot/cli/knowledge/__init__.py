"""`eksbot knowledge`: documents copied into the knowledge directory, and entries and notes kept in the database.

One module a job: `importing` (`import PATH…`: documents staged, read as the loader reads them, then copied),
`entry_commands` (`list`, `add`, `edit`, `delete`, `restore`, `history`, `note`, `notes`, `delete-note` and
`export`: the database's entries and notes, through `bot.curation`), `entry_files` (the Markdown file an entry
is written as) and `tables` (how those commands show what the database holds).
"""

from __future__ import annotations

import argparse

from bot.cli.knowledge import entry_commands, importing


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("knowledge", help="add documents to the knowledge directory; add, edit and delete "
                                              "entries and notes in the database")
    actions = parser.add_subparsers(
        dest="action", required=True, metavar="ACTION",
        help="import (files); list, add, edit, delete, restore, history, note, notes, delete-note, export "
             "(entries and notes in the database)")
    importing.register(actions)
    entry_commands.register(actions)
