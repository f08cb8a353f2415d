"""A cross-process writer lock, so one process at a time changes the index."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

__all__ = ["WriterLock", "try_lock", "unlock"]

if sys.platform == "win32":  # lock the first byte of the lock file
    import msvcrt

    def try_lock(fd: int) -> bool:
        """Take an exclusive lock on an open file without waiting; False if it is held."""
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def try_lock(fd: int) -> bool:
        """Take an exclusive lock on an open file without waiting; False if it is held."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class WriterLock:
    """``flock`` on a lock file (e.g. ``<index>.lock``). Re-entrant within one object (and so
    shared by the threads of one process); released on close or exit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._depth = 0
        self._guard = threading.Lock()  # the depth count, when threads take turns often

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lock, waiting up to ``timeout`` seconds (``None`` waits forever)."""
        with self._guard:
            if self._depth:
                self._depth += 1
                return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.005
        while True:
            with self._guard:
                if self._depth:  # another thread of this process took it meanwhile: share it
                    os.close(fd)
                    self._depth += 1
                    return True
                if try_lock(fd):
                    self._fd = fd
                    self._depth = 1
                    return True
            if deadline is not None and time.monotonic() >= deadline:
                os.close(fd)
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    def release(self) -> None:
        with self._guard:
            if not self._depth:
                return
            self._depth -= 1
            if self._depth == 0 and self._fd is not None:
                unlock(self._fd)
                os.close(self._fd)
                self._fd = None

    @property
    def held(self) -> bool:
        return self._depth > 0

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
