"""Log lines: JSON for collectors, readable text for a person at a terminal, or what EKSBOT_LOG_FORMAT says."""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.config import load_settings
from bot.embedding.onnx_backend import OnnxEmbedder, export_dir
from bot.knowledge import load_knowledge
from bot.logs import LogFormat, configure_logging
from bot.retrieval.artifacts import build_index
from tests.conftest import KNOWLEDGE
from tests.support.api_helpers import free_port
from tests.support.tiny_export import ELSEWHERE, write_tiny_export


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


pytestmark = pytest.mark.usefixtures("root_logger")


def logged(log_format: LogFormat, stream: io.StringIO) -> str:
    configure_logging("INFO", log_format, stream=stream)
    logging.getLogger("bot.test").info("request", extra={"route": "/v1/query", "status": 200, "note": "two words"})
    return stream.getvalue()


@pytest.mark.parametrize(("log_format", "stream"), [("auto", io.StringIO()), ("json", Terminal())])
def test_json_lines_off_a_terminal_or_when_asked(log_format: LogFormat, stream: io.StringIO) -> None:
    [line] = logged(log_format, stream).splitlines()
    record = json.loads(line)
    assert {k: record[k] for k in ("level", "logger", "msg", "route", "status", "note")} == {
        "level": "info", "logger": "bot.test", "msg": "request", "route": "/v1/query", "status": 200,
        "note": "two words",
    }


@pytest.mark.parametrize(("log_format", "stream"), [("auto", Terminal()), ("text", io.StringIO())])
def test_readable_lines_at_a_terminal_or_when_asked(log_format: LogFormat, stream: io.StringIO) -> None:
    [line] = logged(log_format, stream).splitlines()
    assert re.fullmatch(r'\d\d:\d\d:\d\d INFO    bot\.test: request route=/v1/query status=200 note="two words"',
                        line), line


def test_a_readable_line_carries_the_traceback() -> None:
    stream = Terminal()
    configure_logging("INFO", stream=stream)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("bot.test").exception("unhandled error", extra={"route": "/v1/query"})
    first, *rest = stream.getvalue().splitlines()
    assert first.endswith("ERROR   bot.test: unhandled error route=/v1/query")
    assert rest[0] == "Traceback (most recent call last):" and rest[-1] == "RuntimeError: boom"


def test_the_format_is_a_validated_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EKSBOT_LOG_FORMAT", raising=False)
    assert load_settings().log_format == "auto"
    monkeypatch.setenv("EKSBOT_LOG_FORMAT", "text")
    assert load_settings().log_format == "text"
    monkeypatch.setenv("EKSBOT_LOG_FORMAT", "xml")
    with pytest.raises(ValidationError, match="log_format"):
        load_settings()


def test_the_same_warning_is_written_once_a_minute_and_then_says_how_many_were_left_out() -> None:
    """During an outage every request fails the same way: one line a minute, not one per request."""
    from bot.logs import Repeats

    stream = io.StringIO()
    now = [1000.0]
    configure_logging("INFO", "json", stream=stream)
    handler = logging.getLogger().handlers[0]
    assert any(isinstance(f, Repeats) for f in handler.filters)  # the service's logging holds repeats back
    handler.filters[:] = [Repeats(every=60, clock=lambda: now[0])]
    log = logging.getLogger("bot.test")
    for _ in range(5):
        log.warning("database unavailable: %s", "OperationalError")
    log.warning("database unavailable: %s", "InterfaceError")  # another failure is told at once
    log.info("request")  # information is never held back
    now[0] += 61
    log.warning("database unavailable: %s", "OperationalError")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["msg"], line.get("repeated")) for line in lines] == [
        ("database unavailable: OperationalError", None), ("database unavailable: InterfaceError", None),
        ("request", None), ("database unavailable: OperationalError", 4)]


# -- a real `eksbot serve`, at a terminal and piped ---------------------------------------------------------

EKSBOT = str(Path(sys.executable).parent / "eksbot")
TEXT_LINE = re.compile(r"\d\d:\d\d:\d\d (DEBUG|INFO|WARNING|ERROR|CRITICAL) +[\w.]+: ")
READY = "database ready"  # the last line of a start: the database opened (and migrated)


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index over the tiny ONNX export of tests/support/tiny_export.py: a server starts on it without the model."""
    index = tmp_path_factory.mktemp("tiny") / "index"
    write_tiny_export(export_dir(index, "onnx"))
    build_index(load_knowledge(KNOWLEDGE), index, OnnxEmbedder(export_dir(index, "onnx")))
    return index


def serve_env(index: Path, data: Path) -> dict[str, str]:
    env = {**os.environ, "EKSBOT_INDEX_DIR": str(index), "EKSBOT_KNOWLEDGE_DIR": str(KNOWLEDGE),
           "EKSBOT_DATA_DIR": str(data), "EKSBOT_EMBEDDING_MODEL": ELSEWHERE, "EKSBOT_EMBEDDING_BACKEND": "onnx",
           "EKSBOT_AUTO_REBUILD": "false"}
    env.pop("EKSBOT_LOG_FORMAT", None)  # auto
    env.pop("EKSBOT_DATABASE_URL", None)  # a new SQLite file: the schema is made, with its migrations
    return env


def serve_at_a_terminal(env: dict[str, str], timeout: float = 90) -> list[str]:
    """What `eksbot serve` writes on a pseudo-terminal (stdout and stderr both) until its start is done."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the server, its output on the terminal
        os.execve(EKSBOT, [EKSBOT, "serve", "--port", str(free_port())], env)
    output, deadline, stopped = b"", time.monotonic() + timeout, False
    try:
        while True:
            if not stopped and (READY.encode() in output or time.monotonic() > deadline):
                os.kill(pid, signal.SIGINT)
                stopped, deadline = True, time.monotonic() + 30
            if stopped and time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the terminal closed: the server ended
                    break
                if not chunk:
                    break
                output += chunk
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    return output.decode("utf-8", "replace").replace("\r\n", "\n").splitlines()


def serve_piped(env: dict[str, str], timeout: float = 90) -> list[str]:
    """What `eksbot serve` writes on stderr, a pipe, until its start is done."""
    process = subprocess.Popen([EKSBOT, "serve", "--port", str(free_port())], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    try:
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if READY in line or time.monotonic() > deadline:
                break
    finally:
        process.send_signal(signal.SIGINT)
        lines += process.communicate(timeout=30)[1].splitlines()
    return lines


def test_serve_at_a_terminal_writes_readable_lines_and_no_alembic_chatter(tiny_index: Path, tmp_path: Path) -> None:
    lines = serve_at_a_terminal(serve_env(tiny_index, tmp_path / "data"))
    assert any(READY in line for line in lines), lines
    logged = [line for line in lines if TEXT_LINE.match(line)]
    assert any("uvicorn.error: Started server process" in line for line in logged), lines  # uvicorn's own too
    assert not [line for line in lines if line.startswith("{")], lines
    assert not [line for line in lines if "setup plugin" in line or " alembic." in line], lines
    assert any("bot.storage.migrate: database schema upgraded" in line for line in logged), lines


def test_serve_piped_writes_json_lines_and_no_alembic_chatter(tiny_index: Path, tmp_path: Path) -> None:
    lines = serve_piped(serve_env(tiny_index, tmp_path / "data"))
    records = [json.loads(line) for line in lines]  # every line is JSON
    assert any(record["msg"] == READY for record in records), lines
    assert any(record["logger"] == "uvicorn.error" for record in records), lines
    assert not [record for record in records if record["logger"].startswith("alembic")], lines
