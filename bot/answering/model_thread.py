"""One thread for all model work.

PyTorch keeps a pool of compute threads per calling thread, and several pools on a small node fight over
its cores. So every call that encodes text (answers, free-text quiz topics) runs on this one thread,
whichever thread or event loop asks for it.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class ModelThread:
    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="model")
        self._local = threading.local()

    def call(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn` on the model thread and wait for its result (directly when already on that thread)."""
        if getattr(self._local, "inside", False):
            return fn(*args, **kwargs)
        return self._executor.submit(self._inside, functools.partial(fn, *args, **kwargs)).result()

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `fn` on the model thread without blocking the event loop."""
        call = functools.partial(self._inside, functools.partial(fn, *args, **kwargs))
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _inside(self, call: Callable[[], T]) -> T:
        self._local.inside = True
        return call()
