"""Log lines: JSON for collectors, readable text for a person at a terminal, or what EKSBOT_LOG_FORMAT says."""

from __future__ import annotations

import io
import json
import logging
import re

import pytest
from pydantic import ValidationError

from bot.config import load_settings
from bot.logs import LogFormat, configure_logging


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
