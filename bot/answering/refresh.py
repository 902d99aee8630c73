"""Answer from a changed knowledge directory within seconds, with no restart and no pause in answering.

The directory is watched: the system tells of a write below it (inotify on Linux, through `watchfiles`), and the
files are looked at at once. They are also looked at every half second (`knowledge_refresh_seconds`) in any
case, for file systems that tell nothing (names, sizes and modification times only: no file is read while
nothing changed). When something changed, the changed files are read again and a new index
and assistant are made aside, in memory, from the ones in use: the vectors, chunks, terms, BM25 counts, excerpt
and definition readings of every unchanged document are taken over, so only the changed document's text is
embedded (on the model's thread, between answers) and read (how long that takes at scale: `docs/scale.md`).
Meanwhile Python's cycle collector waits: a full pass over the index's objects would cost about as much again.
The new assistant is then handed over in one step (`AssistantInUse.swap`); questions already being answered
finish on the old one.
What the change needs embedded goes to the model's thread a few texts at a time (`ENCODE_BATCH_SECONDS`), so
that a question asked meanwhile waits for one small call, not for the whole change.

A file that cannot be read stops nothing else: a document that cannot be read, a knowledge-format file with an
error, an edition that disagrees with the others, a file larger than the limit or a link out of the directory
is skipped and named in the log (its file, line and reason, once, and again when the reason changes), and the
rest, entries and notes included, goes in (`load_knowledge(strict=False)`). A directory with nothing readable
(emptied, or swapped in the middle of a look) leaves the files in use as they are.

A reload that fails (the model's thread closed, memory) is logged and tried again, backing off from
`every` up to `RETRY_MOST` seconds, whether or not anything changed since: the change is only taken as seen
once it is live. One that runs longer than `SLOW_RELOAD_SECONDS` is said so while it runs. A change that comes
during a reload is taken right after it. `status` counts reloads, failures and the files skipped (metrics).

A folder synced by git-sync (`bot.knowledge.loader`: `team-docs/current -> .worktrees/<sha>`) is read through
its link: the swap of the link to the next revision is one change (every file behind it is another file, even
with the same size and time), read whole from the new worktree. A swap during a reload is read again at once,
so a mix of two revisions is never put in use. When the revision in use changes, the log says
`serving knowledge revision team-docs@<sha12>`; when the new revision cannot be read, the one in use stays
(`status.revision` says which is served).

Each look also asks whether each such folder can be synced now: one `lstat` of git-sync's error file in its
root (`bot.knowledge.git_sync`), read only when it changed. While it is there the revision in use keeps
answering (nothing about answering changes); `status.sync` says since when the folder fails and why (/readyz,
the metrics), and the log says it once when a folder starts failing (a warning) and once when it syncs again.

Each replica watches its own copy of the directory (a volume several replicas mount, or files synced to
each): all of them answer from a change within the interval and the time to index it.

Entries and notes written while the service runs live in the database (`bot.curation`); every replica reads
the knowledge revision (one row) at the same interval, and on a new one takes the entries and notes with the
files. The database is read here, on this thread, never while answering: when it is down, the knowledge in
use keeps answering and the change comes in once it is back, while changed files still come in meanwhile.
With `every` 0 ("only at start"), `run_once` takes the entries and notes once the database is open and watches
nothing after.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
import watchfiles

from bot.answering.assistant import Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.model_thread import ModelThread
from bot.embedding.embedder import Embedder, backend_of
from bot.errors import EksBotError
from bot.knowledge import KnowledgeBase, git_sync, load_knowledge
from bot.knowledge.entries import Entry, with_entries
from bot.knowledge.git_sync import SyncState
from bot.knowledge.loader import Found, ReadCache, Skipped, find_knowledge, source_urls
from bot.knowledge.model import Note
from bot.retrieval.shared_vectors import SharedVectors

log = logging.getLogger(__name__)

WATCH_QUIET_MS = 20  # a change is told once no other came for this long…
WATCH_LONGEST_MS = 200  # …or this long after the first, whichever comes first
# A reload embeds its texts a few at a time, each model call taking about this long: what a question asked
# meanwhile waits for before its own encoding. Smaller calls embed a little less per second.
ENCODE_BATCH_SECONDS = 0.05
ENCODE_BATCH_FIRST = 4  # texts in the first call, before one has been timed
ENCODE_BATCH_MOST = 64
RETRY_MOST = 30.0  # seconds between two attempts of a failing reload, at most
SLOW_RELOAD_SECONDS = 60.0  # a reload running longer than this is said so while it runs
EXTRAS_POLL_SECONDS = 0.5  # with `every` 0: how often to look whether the database is open yet

LOAD_ATTEMPTS = 3  # loads of the files in one check, when git-sync swaps a revision while they are read
REVISION_SHOWN = 12  # characters of a commit in the log

Signature = tuple[tuple[str, int, int, int], ...]


class KnowledgeSource(Protocol):
    """Where entries and notes written while serving are kept (`bot.curation.Curation`)."""

    def revision(self) -> int: ...

    def snapshot(self) -> tuple[int, list[Entry], list[Note]]: ...


@dataclass
class RefreshStatus:
    """What the reloads did so far (the metrics read it): reloads made and attempts that failed, whether a change
    waits to go in after a failure, the files skipped in the knowledge in use, the git-sync revision of each
    folder served, and whether each can be synced now (`bot.knowledge.git_sync`)."""

    reloads: int = 0
    failures: int = 0
    behind: bool = False
    skipped: int = 0
    revision: dict[str, str] = field(default_factory=dict)
    sync: dict[str, SyncState] = field(default_factory=dict)


class KnowledgeRefresh:
    """Watches `directory` (and `extras`, entries and notes kept elsewhere) for the assistant `in_use`, and puts a
    new one in its place when they changed; the text no index held before is read from `shared` (the vectors
    the replicas keep in the database) when some replica embedded it, else embedded and kept there."""

    def __init__(self, directory: Path, in_use: AssistantInUse, *, model: ModelThread | None = None,
                 every: float = 0.5, extras: KnowledgeSource | None = None,
                 extras_ready: Callable[[], bool] = lambda: True, shared: SharedVectors | None = None) -> None:
        self.directory = directory
        self.shared = shared
        self.in_use = in_use
        self.model = model
        self.every = every
        self.extras = extras
        self.extras_ready = extras_ready  # False while the database is still being opened: nothing to say yet
        self.status = RefreshStatus(skipped=len(in_use.knowledge().skipped))
        self._serving(in_use.knowledge().revision)
        found = find_knowledge(directory)
        self._seen = self._signature(found)
        self._look_at_sync(found)
        self._files: KnowledgeBase | None = None  # the files as last loaded (None: as the assistant started)
        self._read: ReadCache = self._as_started()  # each file as last read: an unchanged one is not parsed again
        self._revision: int | None = None  # the extras' revision taken in (None: none yet)
        self._taken: tuple[list[Entry], list[Note]] = ([], [])
        self._named: set[Skipped] = set()  # the files skipped as last said in the log
        self._failing = False
        self._snapshot_failing = False
        self._lock = threading.Lock()

    def signature(self) -> Signature:
        """Each knowledge file's path, size, modification time and inode (and each link refused, and each git-sync
        revision): what changes when a file does, or when a link is swapped to another revision."""
        return self._signature(find_knowledge(self.directory))

    def _signature(self, found: Found) -> Signature:
        out: list[tuple[str, int, int, int]] = []
        for path in [*found.files, *found.sources]:
            try:
                stat = path.stat()
            except OSError:  # gone since it was listed: as a file that cannot be read
                out.append((path.relative_to(self.directory).as_posix(), -1, -1, -1))
            else:
                out.append((path.relative_to(self.directory).as_posix(), stat.st_size, stat.st_mtime_ns,
                            stat.st_ino))
        out += [(refused.path.relative_to(self.directory).as_posix(), -2, -2, -2) for refused in found.refused]
        out += [(f"{folder}@{commit}", -3, -3, -3) for folder, commit in found.revisions]
        return tuple(out)

    def _as_started(self) -> ReadCache:
        """The documents the assistant in use was made from, by their file (as its size and time are now, like
        `signature`): the first change is read as any later one, the unchanged files not parsed again."""
        read: ReadCache = {}
        try:
            files = set(find_knowledge(self.directory).files)
            urls = source_urls(self.directory)
            for doc in self.in_use.knowledge().documents:
                if doc.path in files:
                    stat = doc.path.stat()
                    read[doc.path] = ((stat.st_size, stat.st_mtime_ns, stat.st_ino, urls.get(doc.path)), doc)
        except (OSError, EksBotError):
            return {}
        return read

    def run(self, stop: threading.Event) -> None:
        """Check when a file below the directory is written, and every `every` seconds, until `stop` is set; a
        failed reload is tried again after a back-off."""
        written = threading.Event()
        threading.Thread(target=self._watch, args=(stop, written), name="knowledge-watch", daemon=True).start()
        failures = 0
        while not stop.is_set():
            if failures:
                stop.wait(self._backoff(failures))  # a write does not cut it short: the failure may be memory
            else:
                written.wait(self.every)
            written.clear()
            if stop.is_set():
                return
            failures = 0 if self._attempt(failures, stop) else failures + 1

    def run_once(self, stop: threading.Event) -> None:
        """With no watching (`every` 0): take the entries and notes once they can be read (the database is
        open), trying again after a failure, then stop."""
        failures = 0
        while self.extras is not None and not stop.is_set():
            if self.extras_ready():
                if self._attempt(failures, stop) and self._revision is not None and not self.status.behind:
                    return
                failures += 1
            stop.wait(self._backoff(failures) if failures else EXTRAS_POLL_SECONDS)

    def _backoff(self, failures: int) -> float:
        return float(min(max(self.every, EXTRAS_POLL_SECONDS) * 2 ** (failures - 1), RETRY_MOST))

    def _attempt(self, failures: int, stop: threading.Event) -> bool:
        """One check; False (logged, counted) when it failed."""
        try:
            self.check()
        except Exception:  # noqa: BLE001 - the knowledge in use keeps answering; tried again after a back-off
            if stop.is_set():
                return False  # the service is closing (its model thread first): nothing to report
            log.exception("the changed knowledge could not be indexed (attempt %d): tried again in %g s",
                          failures + 1, self._backoff(failures + 1))
            return False
        return True

    def _watch(self, stop: threading.Event, written: threading.Event) -> None:
        """Set `written` as soon as the system tells of a change below the directory (a few writes close
        together are told once, `WATCH_QUIET_MS` after the last); the periodic look stays when it cannot."""
        try:
            for _ in watchfiles.watch(self.directory, stop_event=stop, debounce=WATCH_LONGEST_MS,
                                      step=WATCH_QUIET_MS, raise_interrupt=False):
                written.set()
        except Exception as exc:  # noqa: BLE001 - the directory is still looked at every `every` seconds
            log.warning("the knowledge directory is looked at every %s s only: it cannot be watched (%s)",
                        self.every, exc.__class__.__name__)
            stop.wait()
        written.set()  # stopped: `run` sees it at once

    def check(self) -> Assistant | None:
        """Index the knowledge again if a file or the extras changed since the last check, or if the last
        attempt failed; the new assistant, or None. Raises when the new index cannot be made (counted; the change
        is then still to be taken: the next check tries again)."""
        with self._lock:
            try:
                return self._check()
            except Exception:
                self.status.failures += 1
                raise

    def _check(self) -> Assistant | None:
        found = find_knowledge(self.directory)
        self._look_at_sync(found)
        signature, revision = self._signature(found), self._extras_revision()
        files_changed = signature != self._seen
        extras_changed = revision is not None and revision != self._revision
        if not files_changed and not extras_changed and not self.status.behind:
            return None
        started = time.perf_counter()
        self.status.behind = True  # until the change is live
        if files_changed or self._files is None:
            self._files = self._load_files()
            self._seen = signature
        if extras_changed and self.extras is not None:
            self._take_extras()
        current = self.in_use.current()
        knowledge = with_entries(self._files, *self._taken)
        embedder = None if self.model is None else _OnModelThread(current.embedder, self.model)
        with _said_if_slow(), _collector_paused():
            fresh = current.with_knowledge(knowledge, embedder, self.shared)
        self.status.behind = False
        self.status.skipped = len(knowledge.skipped)
        self._serving(knowledge.revision)
        if fresh is current:
            return None
        self.in_use.swap(fresh)
        del current  # the replaced assistant goes once the answers still using it finish
        release_freed_memory()
        self.status.reloads += 1
        log.info("knowledge reloaded", extra={
            "documents": len(knowledge.documents), "chunks": len(fresh.index.chunks), "notes": len(knowledge.notes),
            "skipped": len(knowledge.skipped), "revision": self._revision, "knowledge_revision": knowledge.revision,
            "seconds": round(time.perf_counter() - started, 3)})
        return fresh

    def _serving(self, revision: dict[str, str]) -> None:
        """Take `revision` (folder: commit) as the one served, saying each folder whose commit changed."""
        for folder, commit in sorted(revision.items()):
            if self.status.revision.get(folder) != commit:
                log.info("serving knowledge revision %s@%s", folder, commit[:REVISION_SHOWN],
                         extra={"folder": folder, "commit": commit})
        self.status.revision = dict(revision)

    def _look_at_sync(self, found: Found) -> None:
        """Whether each git-sync folder found can be synced now (its error file), said in the log when a folder
        starts failing or syncs again. Never raises: answering and the reload go on whatever the file holds."""
        before = self.status.sync
        now: dict[str, SyncState] = {}
        for folder, root in found.roots:
            was = before.get(folder, git_sync.OK)
            try:
                now[folder] = state = git_sync.look(root, was)
            except Exception:  # noqa: BLE001 - as it was: the next look tries again
                now[folder] = state = was
            if was.ok and not state.ok:
                serving = self.status.revision.get(folder)
                kept = f" (still serving {folder}@{serving[:REVISION_SHOWN]})" if serving else ""
                log.warning("git-sync cannot sync %s: %s%s", folder, state.error, kept,
                            extra={"folder": folder, "commit": serving})
            elif state.ok and not was.ok:
                log.info("git-sync syncs %s again", folder, extra={"folder": folder})
        self.status.sync = now

    def _load_files(self) -> KnowledgeBase:
        """The knowledge files as they are now, what cannot be read skipped (and named, when new); the files in
        use when nothing can be read. Read again when git-sync swapped a revision meanwhile (some files may be
        of the one before), up to `LOAD_ATTEMPTS` times; the files in use stay when it never settles."""
        for _ in range(LOAD_ATTEMPTS):
            try:
                files = load_knowledge(self.directory, self._read, strict=False)
            except EksBotError as exc:
                log.warning("the knowledge files in use stay: %s", exc)
                return self._files or self.in_use.knowledge()
            if find_knowledge(self.directory).revisions == files.revisions:
                break
        else:
            log.warning("the knowledge files in use stay: the revision changed while it was read")
            return self._files or self.in_use.knowledge()
        named = set(files.skipped)
        for skipped in sorted(named - self._named, key=lambda s: s.path):
            log.warning("skipped %s", skipped.located, extra={"file": str(skipped.path), "line": skipped.line})
        self._named = named
        return files

    def _take_extras(self) -> None:
        """The entries and notes as they are now; when they cannot be read, the ones taken before stay (the
        next check tries again: their revision is still new)."""
        assert self.extras is not None
        try:
            self._revision, entries, notes = self.extras.snapshot()
        except EksBotError as exc:
            if not self._snapshot_failing:
                log.warning("entries and notes not read: %s", exc.__class__.__name__)
            self._snapshot_failing = True
            return
        self._snapshot_failing = False
        self._taken = (entries, notes)

    def _extras_revision(self) -> int | None:
        """The extras' revision now; None without extras or while they cannot be read (said once)."""
        if self.extras is None or not self.extras_ready():
            return None
        try:
            revision = self.extras.revision()
        except EksBotError as exc:
            if not self._failing:
                log.warning("entries and notes cannot be read now: %s", exc.__class__.__name__)
            self._failing = True
            return None
        if self._failing:
            log.info("entries and notes can be read again")
        self._failing = False
        return revision


def release_freed_memory() -> None:
    """Give the memory freed since the last call back to the system. glibc's allocator keeps freed pages for
    later allocations: after an assistant is replaced (or the start's loading is done), a replica would
    otherwise stay at its peak. Nothing where the C library is not glibc."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)  # the C library the process runs with
    except OSError:
        return None


@contextmanager
def _said_if_slow() -> Iterator[None]:
    """Log, while it runs, a reload that takes longer than `SLOW_RELOAD_SECONDS` (the knowledge in use keeps
    answering meanwhile)."""
    started = time.perf_counter()
    timer = threading.Timer(SLOW_RELOAD_SECONDS, lambda: log.warning(
        "a reload of the knowledge is still running after %.0f s", time.perf_counter() - started))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while the new assistant is made (it is on again after, as it was)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class _OnModelThread:
    """An embedder whose encoding runs on the model's thread, between the answers' model calls."""

    def __init__(self, embedder: Embedder, model: ModelThread) -> None:
        self.embedder = embedder
        self.model = model
        self.model_id = embedder.model_id
        self.dimension = embedder.dimension
        self.backend = backend_of(embedder)
        self.batch = ENCODE_BATCH_FIRST  # texts in the next model call

    def encode(self, texts: list[str]) -> np.ndarray:
        """A few texts a model call, as many as take about `ENCODE_BATCH_SECONDS` (measured on the way: it
        depends on the model, the texts and the node): a question's encoding goes in between two calls."""
        if not texts:
            return self.model.call(self.embedder.encode, texts)
        parts: list[np.ndarray] = []
        done = 0
        while done < len(texts):
            part = texts[done : done + self.batch]
            vectors, seconds = self.model.call(self._timed, part)
            parts.append(vectors)
            done += len(part)
            fits = int(ENCODE_BATCH_SECONDS * len(part) / seconds) if seconds > 0 else ENCODE_BATCH_MOST
            self.batch = max(1, min(ENCODE_BATCH_MOST, fits))
        return np.concatenate(parts)

    def _timed(self, texts: list[str]) -> tuple[np.ndarray, float]:
        started = time.perf_counter()
        vectors = self.embedder.encode(texts)
        return vectors, time.perf_counter() - started
