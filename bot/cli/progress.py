"""Progress of long commands on stderr: a `rich` progress bar at a terminal, one line every few seconds
otherwise (CI logs, `kubectl logs`)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn
from rich.progress import Progress as Bars

from bot.logs import Progress, Step, Throttled


@contextmanager
def shown(stream: TextIO | None = None) -> Iterator[Progress]:
    """A listener to the command's long work, shown on `stream` (stderr) while the block runs."""
    out = stream if stream is not None else sys.stderr
    isatty = getattr(out, "isatty", None)
    if isatty is None or not isatty():
        yield Throttled(lambda step: print(f"eksbot: {step.line()}", file=out, flush=True))
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[unit]}"),
               TextColumn("{task.fields[left]}"))
    with Bars(*columns, console=Console(file=out), transient=False) as bars:
        tasks: dict[str, TaskID] = {}

        def show(step: Step) -> None:
            if step.stage not in tasks:
                tasks[step.stage] = bars.add_task(step.stage, total=step.total, unit=step.unit, left="")
            description = f"{step.stage} ({step.detail})" if step.detail else step.stage
            bars.update(tasks[step.stage], completed=step.done, total=step.total, description=description,
                        left=step.left())

        yield show
