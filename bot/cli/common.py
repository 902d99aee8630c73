"""What every subcommand shares: settings from the environment and the global options, and the parts a command
runs on (`bot.services.CommandServices`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Settings, load_settings

if TYPE_CHECKING:
    from bot.services import CommandServices


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The settings, with `--knowledge-dir` and `--index-dir` winning over the environment."""
    overrides: dict[str, object] = {}
    for name in ("knowledge_dir", "index_dir"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = Path(value)
    return load_settings(**overrides)


def services_from_args(args: argparse.Namespace, *, migrate: bool = True) -> CommandServices:
    """The parts a command runs on, built from the settings (`settings_from_args`) as it asks for them; close them
    with a `with` block. `migrate=False`: the database is opened as it is."""
    from bot.services import CommandServices

    return CommandServices(settings_from_args(args), migrate=migrate)
