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


class Assist:
    """Work a worker thread hands back to the thread that waits for it.

    A hybrid search runs its vector half on a worker while the calling thread does the keyword
    half, then waits. Rather than start more threads than there are cores for the vector scan
    (they would slow the keyword half down as much as they speed the scan up), the worker
    :meth:`offer`\\ s its scan and the caller, once its own half is done, :meth:`join`\\ s in.
    A job must be safe to run on several threads at once and return when nothing is left.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._jobs: list[Callable[[], None]] = []
        self._closed = False

    def offer(self, job: Callable[[], None]) -> None:
        with self._cond:
            if not self._closed:
                self._jobs.append(job)
                self._cond.notify_all()

    def withdraw(self, job: Callable[[], None]) -> None:
        """The job is finished: a thread that joins later has nothing to take from it."""
        with self._cond:
            if job in self._jobs:
                self._jobs.remove(job)

    def close(self) -> None:
        """The worker is done; :meth:`join` returns."""
        with self._cond:
            self._closed = True
            self._jobs.clear()
            self._cond.notify_all()

    def join(self) -> None:
        """Run offered jobs until the worker closes this (call :meth:`close` when it ends)."""
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or bool(self._jobs))
                if self._closed:
                    return
                job = self._jobs[-1]
            job()
            self.withdraw(job)
