"""Logging on stderr: one JSON object per line for log collectors (on EKS), or readable lines for a person
at a terminal. `EKSBOT_LOG_FORMAT` chooses: `auto` (text on a terminal, JSON otherwise), `json` or `text`.

Also the progress of long work (building the index): the work counts its units through a `Stage`, which
tells a listener (`Progress`, none by default: nothing is computed then) each `Step`; `Throttled` writes one
line every `PROGRESS_EVERY` seconds of them, through a log or on a stream."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, TextIO

LogFormat = Literal["auto", "json", "text"]

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def _extras(record: logging.LogRecord) -> Iterator[tuple[str, object]]:
    """What the call passed in `extra=`."""
    for key, value in vars(record).items():
        if key not in _STANDARD and not key.startswith("_") and key != "color_message":
            yield key, value


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        payload.update(_extras(record))
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """`12:00:01 INFO    bot.api.middleware: request route=/v1/query status=200`: local time, level, logger,
    message, then the extras as key=value (quoted when a value has spaces); a traceback below."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        line = f"{when} {record.levelname:<7} {record.name}: {record.getMessage()}"
        extras = " ".join(f"{key}={_text(value)}" for key, value in _extras(record))
        if extras:
            line += " " + extras
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _text(value: object) -> str:
    text = value if isinstance(value, str) else str(value)
    if not text or any(c.isspace() or c in "\"'=" for c in text):
        return json.dumps(text, ensure_ascii=False)
    return text


def chosen_format(log_format: LogFormat, stream: TextIO) -> Literal["json", "text"]:
    """`auto` is text when `stream` is a terminal, JSON otherwise."""
    if log_format != "auto":
        return log_format
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


class Repeats(logging.Filter):
    """The same warning (logger, text and values) at most once every `every` seconds: during an outage, one
    line saying so rather than one per request. The next one that gets through says how many were left out."""

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self._seen: dict[tuple[str, str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or record.exc_info:
            return True
        key = (record.name, str(record.msg), repr(record.args))
        now = self.clock()
        last, held = self._seen.get(key, (None, 0))
        if last is not None and now - last < self.every:
            self._seen[key] = (last, held + 1)
            return False
        if len(self._seen) > 10_000:
            self._seen.clear()
        self._seen[key] = (now, 0)
        if held:
            record.repeated = held  # shown with the record's extras
        return True


def configure_logging(level: str = "INFO", log_format: LogFormat = "auto", *, stream: TextIO | None = None) -> None:
    out = stream if stream is not None else sys.stderr
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter() if chosen_format(log_format, out) == "text" else JsonFormatter())
    handler.addFilter(Repeats())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("bm25s", "sentence_transformers", "transformers", "httpx", "urllib3", "filelock"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))


# -- progress of long work ---------------------------------------------------------------------------------

PROGRESS_EVERY = 5.0  # seconds between two progress lines of `Throttled`


@dataclass(frozen=True)
class Step:
    """Where a long piece of work is: `done` of `total` `unit` in `stage`, what else it has to say (`detail`:
    "9,000 chunks"), and the seconds left at the pace so far (None before the first unit is done)."""

    stage: str
    done: int
    total: int
    unit: str
    seconds_left: float | None = None
    detail: str = ""

    def line(self) -> str:
        """`embedding chunks 1,234/10,000 texts, 12 s left`."""
        text = f"{self.stage} {self.done:,}/{self.total:,} {self.unit}"
        if self.detail:
            text += f" ({self.detail})"
        left = self.left()
        return f"{text}, {left}" if left else text

    def left(self) -> str:
        """`12 s left`, or "" when unknown or done."""
        if self.seconds_left is None or self.done >= self.total:
            return ""
        return f"{max(1, round(self.seconds_left)):,} s left"


Progress = Callable[[Step], None]  # a listener to long work: told every step


class Stage:
    """One stage of long work counted for a listener: a step when it starts (0 done) and at every `advance`,
    with the time left at the pace so far. With no listener it does nothing."""

    def __init__(self, progress: Progress | None, stage: str, total: int, unit: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.progress, self.stage, self.total, self.unit, self.clock = progress, stage, total, unit, clock
        self.done = 0
        self.started = clock()
        if progress is not None:
            progress(Step(stage, 0, total, unit))

    def advance(self, count: int = 1, detail: str = "") -> None:
        if self.progress is None:
            return
        self.done = min(self.total, self.done + count)
        elapsed = self.clock() - self.started
        left = elapsed / self.done * (self.total - self.done) if self.done else None
        self.progress(Step(self.stage, self.done, self.total, self.unit, left, detail))


class Throttled:
    """A listener that writes a step's line (`write`) once `every` seconds (`PROGRESS_EVERY` when not given)
    have passed since it was made or last wrote, and the end of a stage it wrote a line of: long work shows
    in a log from its first seconds, one line every few seconds, and quick work leaves no line at all."""

    def __init__(self, write: Callable[[Step], None], every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.write = write
        self.every = PROGRESS_EVERY if every is None else every
        self.clock = clock
        self._last = clock()
        self._written: set[str] = set()  # the stages a line was written of

    def __call__(self, step: Step) -> None:
        now = self.clock()
        if now - self._last >= self.every or (step.done >= step.total and step.stage in self._written):
            self._last = now
            self._written.add(step.stage)
            self.write(step)


def logged_progress(logger: logging.Logger, every: float | None = None) -> Throttled:
    """Progress as INFO lines of `logger` (with the stage and counts as extras), one every few seconds."""
    return Throttled(lambda step: logger.info(step.line(), extra={
        "stage": step.stage, "done": step.done, "total": step.total}), every)
