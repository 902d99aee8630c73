"""What every subcommand shares: settings from the environment and the global options."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.config import Settings, load_settings


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The settings, with `--knowledge-dir` and `--index-dir` winning over the environment."""
    overrides: dict[str, object] = {}
    for name in ("knowledge_dir", "index_dir"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = Path(value)
    return load_settings(**overrides)
