"""Whether a folder synced by git-sync can be synced now, and if not, since when and why.

git-sync (v4, `--error-file`, which the Helm chart sets to `ERROR_FILE` in its root) writes the error of a sync
that failed into that file, again at each failed attempt (JSON: `{"Msg": ..., "Err": ..., "Args": {...}}`), and
deletes it after a sync that worked. While it is there, git-sync keeps the last good revision linked (with
`--max-failures=-1` it retries for ever), and the bot keeps answering from it: the file only says that the
revision served may be behind the repository.

`look` is one `lstat` of the file: it is read only when it changed (another file, size or time), at most
`READ_MOST` bytes, never through a link, and never anything but a regular file. What it says is cut to its
first line, `SHOWN_MOST` characters, anything that is not printable replaced, and the user and password of a
URL (`https://user:token@host/...`) taken out: the message goes to /readyz, whoever can reach the probe.
A file that cannot be read, or holds nothing readable, still says the folder is failing.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

ERROR_FILE = ".git-sync-error.json"  # hidden: the knowledge loader never reads it as knowledge
READ_MOST = 64 * 1024  # bytes of the error file read, at most
SHOWN_MOST = 400  # characters of the message kept, at most
UNREADABLE = "git-sync's error file cannot be read"

# `scheme://user:password@`: from `://` on (a run ends at the next `/`: linear in the line's length)
_USERINFO = re.compile(r"://[^\s/?#@]*@")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class SyncState:
    """A git-sync folder's sync as last looked at: ok when git-sync's error file is not there; else since when
    it fails (the file's time when first seen failing), its last failure (the file's time now) and why."""

    failing_since: float | None = None  # seconds since the epoch
    last_failure: float | None = None
    error: str | None = None
    seen: tuple[int, int, int] | None = None  # the error file's inode, size and time as read

    @property
    def ok(self) -> bool:
        return self.failing_since is None


OK = SyncState()


def look(root: Path, before: SyncState = OK) -> SyncState:
    """The sync of the git-sync folder whose root is `root`, given how it was at the last look (`before`)."""
    path = root / ERROR_FILE
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return OK
    except OSError:
        return before  # cannot tell now (the root is being replaced, a permission): as it was
    seen = (info.st_ino, info.st_size, info.st_mtime_ns)
    if not before.ok and before.seen == seen:
        return before
    error = read_error(path) if stat.S_ISREG(info.st_mode) else UNREADABLE
    since = before.failing_since if before.failing_since is not None else info.st_mtime
    return SyncState(failing_since=since, last_failure=info.st_mtime, error=error, seen=seen)


def read_error(path: Path) -> str:
    """The message of git-sync's error file at `path`, made safe to show (`message`); never follows a link,
    never blocks on a pipe, reads `READ_MOST` bytes at most."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return UNREADABLE
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return UNREADABLE
        raw = os.read(fd, READ_MOST + 1)
    except OSError:
        return UNREADABLE
    finally:
        os.close(fd)
    return message(raw[:READ_MOST], cut=len(raw) > READ_MOST)


def message(raw: bytes, *, cut: bool = False) -> str:
    """What git-sync's error file `raw` says, on one line: its `Msg` and `Err` (or its text, when it is not
    git-sync's JSON), the first line only, credentials in URLs taken out, `SHOWN_MOST` characters at most.
    `cut`: `raw` is the start of a longer file (its last, partial word is dropped, which could be part of a
    URL's password)."""
    text = raw.decode("utf-8", errors="replace")
    if cut:
        text = text[: max(text.rfind(" "), text.rfind("\n"), 0)]
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        payload = None
    if isinstance(payload, dict):
        parts = [payload.get(key) for key in ("Msg", "Err")]
        said = ": ".join(part.strip() for part in parts if isinstance(part, str) and part.strip())
        text = said or text
    elif isinstance(payload, str):
        text = payload
    line = next((line for line in text.splitlines() if line.strip()), "")
    line = _USERINFO.sub("://", line)
    line = "".join(c if c.isprintable() else " " for c in line)
    line = _SPACES.sub(" ", line).strip()
    if len(line) > SHOWN_MOST:
        line = line[: SHOWN_MOST - 1].rstrip() + "…"
    return line or UNREADABLE
