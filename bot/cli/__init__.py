"""The `eksbot` command: a thin surface over the core (parse, call one function, render)."""

from bot.cli.main import main

__all__ = ["main"]
