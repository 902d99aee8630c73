"""Answer from a changed knowledge directory within seconds, with no restart and no pause in answering.

The directory is watched: the system tells of a write below it (inotify on Linux, through `watchfiles`), and the
files are looked at at once. They are also looked at every half second (`knowledge_refresh_seconds`) in any
case, for file systems that tell nothing (names, sizes and modification times: about 3 ms for 150 files, and no
file is read while nothing changed). When something changed, the changed files are read again and a new index
and assistant are made aside, in memory, from the ones in use: the vectors, chunks, terms, BM25 counts, excerpt
and definition readings of every unchanged document are taken over, so only the changed document's text is
embedded (on the model's thread, between answers) and read. At 10,000 sections of docs this takes about a second
(`docs/scale.md`), during which Python's cycle collector waits (a full pass over the millions of objects of the
index would add most of a second more). The new assistant is then handed over in one step; questions already
being answered finish on the old one. A document that cannot be read is skipped as at start; a knowledge file
with an error leaves the knowledge in use as it is, and says why.

Each replica watches its own copy of the directory (a volume several replicas mount, or files synced to
each): all of them answer from a change within the interval and the time to index it.

Entries and notes written while the service runs live in the database (`bot.curation`); every replica reads
the knowledge revision (one row) at the same interval, and on a new one takes the entries and notes with the
files. The database is read here, on this thread, never while answering: when it is down, the knowledge in
use keeps answering and the change comes in once it is back.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
import watchfiles

from bot.answering.assistant import Assistant
from bot.answering.model_thread import ModelThread
from bot.embedding.embedder import Embedder, backend_of
from bot.errors import EksBotError
from bot.knowledge import KnowledgeBase, load_knowledge
from bot.knowledge.entries import Entry, with_entries
from bot.knowledge.loader import SOURCES_FILE, ReadCache, knowledge_files, source_urls
from bot.knowledge.model import Note

log = logging.getLogger(__name__)

WATCH_QUIET_MS = 20  # a change is told once no other came for this long…
WATCH_LONGEST_MS = 200  # …or this long after the first, whichever comes first

Signature = tuple[tuple[str, int, int], ...]


class KnowledgeSource(Protocol):
    """Where entries and notes written while serving are kept (`bot.curation.Curation`)."""

    def revision(self) -> int: ...

    def snapshot(self) -> tuple[int, list[Entry], list[Note]]: ...


class KnowledgeRefresh:
    """Watches `directory` (and `extras`, entries and notes kept elsewhere); `current()` is the assistant in use,
    `swap(new)` puts a new one in its place."""

    def __init__(self, directory: Path, current: Callable[[], Assistant], swap: Callable[[Assistant], None], *,
                 model: ModelThread | None = None, every: float = 0.5, extras: KnowledgeSource | None = None,
                 extras_ready: Callable[[], bool] = lambda: True) -> None:
        self.directory = directory
        self.current = current
        self.swap = swap
        self.model = model
        self.every = every
        self.extras = extras
        self.extras_ready = extras_ready  # False while the database is still being opened: nothing to say yet
        self._seen = self.signature()
        self._files: KnowledgeBase | None = None  # the files as last loaded (None: as the assistant started)
        self._read: ReadCache = self._as_started()  # each file as last read: an unchanged one is not parsed again
        self._revision: int | None = None  # the extras' revision taken in (None: none yet)
        self._taken: tuple[list[Entry], list[Note]] = ([], [])
        self._failing = False
        self._lock = threading.Lock()

    def signature(self) -> Signature:
        """Each knowledge file's path, size and modification time: what changes when a file does."""
        try:
            paths = [*knowledge_files(self.directory), *sorted(self.directory.rglob(SOURCES_FILE))]
            return tuple((p.relative_to(self.directory).as_posix(), (st := p.stat()).st_size, st.st_mtime_ns)
                         for p in paths)
        except OSError:
            return ()

    def _as_started(self) -> ReadCache:
        """The documents the assistant in use was made from, by their file (as its size and time are now, like
        `signature`): the first change is read as any later one, the unchanged files not parsed again."""
        read: ReadCache = {}
        try:
            files = set(knowledge_files(self.directory))
            urls = source_urls(self.directory)
            for doc in self.current().knowledge.documents:
                if doc.path in files:
                    stat = doc.path.stat()
                    read[doc.path] = ((stat.st_size, stat.st_mtime_ns, urls.get(doc.path)), doc)
        except (OSError, EksBotError):
            return {}
        return read

    def run(self, stop: threading.Event) -> None:
        """Check when a file below the directory is written, and every `every` seconds, until `stop` is set."""
        written = threading.Event()
        threading.Thread(target=self._watch, args=(stop, written), name="knowledge-watch", daemon=True).start()
        while not stop.is_set():
            written.wait(self.every)
            written.clear()
            if stop.is_set():
                return
            try:
                self.check()
            except Exception:  # noqa: BLE001 - the knowledge in use keeps answering; the next change retries
                log.exception("the changed knowledge could not be indexed")

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
        """Index the knowledge again if a file or the extras changed since the last check; the new assistant,
        or None."""
        with self._lock:
            signature, revision = self.signature(), self._extras_revision()
            files_changed = signature != self._seen
            extras_changed = revision is not None and revision != self._revision
            if not files_changed and not extras_changed:
                return None
            started = time.perf_counter()
            if files_changed:
                self._seen = signature
                try:
                    self._files = load_knowledge(self.directory, self._read)
                except EksBotError as exc:
                    log.warning("the knowledge in use stays: %s", exc)
                    return None
                for skipped in self._files.skipped:
                    log.warning("skipped %s", skipped)
            if extras_changed and self.extras is not None:
                try:
                    self._revision, entries, notes = self.extras.snapshot()
                except EksBotError as exc:
                    log.warning("entries and notes not read: %s", exc.__class__.__name__)
                    return None
                self._taken = (entries, notes)
            current = self.current()
            files = self._files or load_knowledge(self.directory, self._read)
            knowledge = with_entries(files, *self._taken)
            embedder = None if self.model is None else _OnModelThread(current.embedder, self.model)
            with _collector_paused():
                fresh = current.with_knowledge(knowledge, embedder)
            if fresh is current:
                return None
            self.swap(fresh)
            del current  # the replaced assistant goes once the answers still using it finish
            release_freed_memory()
            log.info("knowledge reloaded", extra={
                "documents": len(knowledge.documents), "chunks": len(fresh.index.chunks), "notes": len(knowledge.notes),
                "revision": self._revision, "seconds": round(time.perf_counter() - started, 3)})
            return fresh

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


def with_extras(assistant: Assistant, entries: list[Entry], notes: list[Note]) -> Assistant:
    """The assistant with entries and notes kept in the database added to its knowledge (itself when there
    are none): its index is extended, reusing every vector it has."""
    return assistant.with_knowledge(with_entries(assistant.knowledge, entries, notes))


def release_freed_memory() -> None:
    """Give the memory freed since the last call back to the system. glibc's allocator keeps freed pages for
    later allocations: after an assistant is replaced (or the start's loading is done), a replica would
    otherwise stay at its peak (at 10,000 sections of docs, tens of MB). Nothing where the C library is not
    glibc."""
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

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.model.call(self.embedder.encode, texts)
