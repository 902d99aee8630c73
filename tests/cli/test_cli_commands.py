"""`eksbot serve`, `slack`, `db` and `quiz` as a terminal runs them: the global options, the database,
and one line with an exit code when something fails."""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI

from bot.answering.assistant import Assistant
from bot.cli.main import build_parser, main
from bot.config import Settings
from bot.errors import ConfigError
from bot.logs import JsonFormatter, TextFormatter
from bot.services import Services
from bot.storage import Database
from bot.storage.migrate import head_revision
from tests.conftest import UNREACHABLE_DATABASE
from tests.support.cli_helpers import run


def directories(tmp_path: Path) -> tuple[list[str], Path, Path]:
    knowledge, index = tmp_path / "my-knowledge", tmp_path / "my-index"
    return ["--knowledge-dir", str(knowledge), "--index-dir", str(index)], knowledge, index


def test_serve_uses_the_global_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], root_logger: None
) -> None:
    served: list[FastAPI] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **_options: served.append(app))
    monkeypatch.setenv("EKSBOT_LOG_FORMAT", "text")  # a terminal's: the address is printed for a person
    options, knowledge, index = directories(tmp_path)
    code, out, _err = run([*options, "serve", "--port", "8099"], capsys)
    assert code == 0 and "http://127.0.0.1:8099" in out
    settings: Settings = served[0].state.settings
    assert (settings.knowledge_dir, settings.index_dir) == (knowledge, index)


def test_serve_with_json_logs_writes_nothing_but_json_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], root_logger: None
) -> None:
    monkeypatch.setattr(uvicorn, "run", lambda app, **_options: None)
    monkeypatch.setenv("EKSBOT_LOG_FORMAT", "json")
    code, out, err = run(["serve", "--port", "8099"], capsys)
    assert code == 0 and out == ""
    lines = [json.loads(line) for line in err.splitlines()]  # every line is JSON
    assert any(line.get("url") == "http://127.0.0.1:8099" for line in lines)


@pytest.mark.parametrize(("setting", "formatter"), [("text", TextFormatter), ("json", JsonFormatter)])
def test_serve_logs_in_the_format_set(
    setting: str, formatter: type[logging.Formatter], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], root_logger: None
) -> None:
    monkeypatch.setattr(uvicorn, "run", lambda app, **_options: None)
    monkeypatch.setenv("EKSBOT_LOG_FORMAT", setting)
    assert run(["serve"], capsys)[0] == 0
    [handler] = logging.getLogger().handlers
    assert type(handler.formatter) is formatter


def test_socket_mode_uses_the_global_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], root_logger: None
) -> None:
    loaded: list[Settings] = []

    def load(settings: Settings, **_options: object) -> Services:
        loaded.append(settings)
        raise ConfigError("stopped before loading the model")

    monkeypatch.setattr(Services, "load", load)
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-test")
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    options, knowledge, index = directories(tmp_path)
    code, _out, err = run([*options, "slack", "--socket"], capsys)
    assert code == 1 and err == "eksbot: stopped before loading the model\n"
    assert (loaded[0].knowledge_dir, loaded[0].index_dir) == (knowledge, index)


def test_upgrade_then_status_tell_the_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}")
    options, _, _ = directories(tmp_path)  # accepted by every subcommand
    code, out, err = run([*options, "db", "status"], capsys)
    assert code == 0, err
    assert "reachable" in out and "none (run: eksbot db upgrade)" in out
    code, out, err = run(["db", "upgrade"], capsys)
    assert code == 0, err
    assert f"at revision {head_revision()}" in out
    assert f"revision {head_revision()}" in run(["db", "status"], capsys)[1]


@pytest.mark.parametrize("command", [["db", "status"], ["db", "upgrade"], ["quiz", "--lang", "en"]])
def test_an_unreachable_database_is_one_line_and_exit_code_1(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", UNREACHABLE_DATABASE)
    code, out, err = run(command, capsys)
    assert code == 1 and out == ""
    assert err.startswith("eksbot: database error: ") and err.count("\n") == 1
    assert "refused" in err.lower() and "Traceback" not in err


def test_the_quiz_does_not_migrate_when_migrations_are_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'eksbot.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("EKSBOT_MIGRATE_ON_START", "false")
    code, _out, err = run(["quiz", "--lang", "en", "--topic", "karpenter"], capsys)
    assert code == 1 and err.startswith("eksbot: database error: ") and "no such table" in err
    with Database(url) as store:
        assert store.revision() is None  # left as it was, for the release job to migrate


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"eksbot {metadata.version('eksbot')}\n"


def test_every_positional_argument_says_what_it_is() -> None:
    def positionals(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
        for action in parser._actions:
            if not action.option_strings:
                yield path, action
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    yield from positionals(child, f"{path} {name}")

    found = list(positionals(build_parser(), "eksbot"))
    assert {(path, action.dest) for path, action in found} >= {
        ("eksbot", "command"), ("eksbot index", "action"), ("eksbot ask", "question"), ("eksbot eval", "file"),
    }
    assert [(path, action.dest) for path, action in found if not action.help] == []


def test_an_unknown_quiz_topic_is_one_line_with_the_topics_and_no_banner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_assistant: Assistant
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'eksbot.db'}")
    # A topic that names no quiz topic is matched by meaning: on the fake-embedder assistant here.
    monkeypatch.setattr(Assistant, "from_settings", lambda *_args, **_kwargs: fake_assistant)
    code, out, err = run(["quiz", "--lang", "en", "--topic", "nonsense"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("eksbot: I have no questions about \u201cnonsense\u201d. Topics: ") and err.count("\n") == 1
    assert all(topic in err for topic in fake_assistant.topics("en"))
