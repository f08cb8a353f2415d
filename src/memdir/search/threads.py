"""Thread pools started on first use and replaced, not inherited, in a forked child."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["LazyPool"]


class LazyPool:
    """A :class:`ThreadPoolExecutor` created on first :meth:`get`.

    Threads do not survive ``fork()``: a child (multiprocessing's default start method on
    Linux) that kept the parent's executor would find idle slots it believes are threads and
    queue its work forever, so the child forgets the executor and starts its own.
    """

    def __init__(self, prefix: str, workers: Callable[[], int]) -> None:
        self._prefix = prefix
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._pool = None
        self._lock = threading.Lock()

    def get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self._workers(), thread_name_prefix=self._prefix
                )
            return self._pool
