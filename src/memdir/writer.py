"""Append-only writes to memory files, safe with concurrent writers and crashes.

:func:`append_note` adds text to the end of a Markdown file and never rewrites what is there:

* **One writer at a time.** An exclusive lock (``flock``; ``msvcrt.locking`` on Windows) on a
  lock file beside the target, :data:`LOCK_NAME`, serialises every memdir writer of that
  folder, in this process or another. The file is opened with ``O_APPEND`` and the note goes
  out in one ``write`` (looped only if the OS writes less), then ``fsync``.
* **Crash-safe.** Earlier content is never touched. A crash mid-write can leave at most a
  partial last note; the next append starts on a fresh line (the note is preceded by ``\\n``
  whenever the file does not end with one), so it is never glued to the broken text.
* **Readable result.** Notes are separated by a blank line; a new file may start with a
  ``header`` (e.g. ``# 2026-01-12``) written with the first note.
* **No symlinks, no FIFOs, no hard links.** The target is opened with ``O_NOFOLLOW`` and
  ``O_NONBLOCK`` and must be a regular file with one link (unless ``allow_hardlinks``: the
  other name of a hard-linked file may be outside the workspace, the rule discovery and
  ``get`` apply too); the caller checks the folders on the way
  (:meth:`memdir.tools.access.AccessPolicy.writable`).

The returned :class:`AppendResult` gives the 1-based lines the note occupies, for a citation.

:func:`replace_text` is the one rewrite memdir does (``memdir consolidate`` updating
``MEMORY.md``): under the same lock, it checks that the file still holds what the caller read,
writes the new text to a temporary file beside it, ``fsync`` s it and renames it over the
target, so a reader sees the old file or the new one, never a mix.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from memdir.errors import StorageError, UsageError
from memdir.index.lock import try_lock, unlock

__all__ = [
    "LOCK_NAME",
    "AppendResult",
    "append_note",
    "exclusive_lock",
    "replace_text",
    "write_all",
]

LOCK_NAME = ".memdir-write.lock"
"""Name of the lock file created beside written files (one per folder)."""

_LOCK_WAIT_S = 30.0
_READ_CHUNK = 1 << 16
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """Where a note went: ``path`` lines ``start_line``..``end_line`` (1-based, inclusive)."""

    path: Path
    bytes_written: int
    created: bool
    start_line: int
    end_line: int
    size: int


def append_note(
    path: Path,
    text: str,
    *,
    header: str = "",
    lock_wait_s: float = _LOCK_WAIT_S,
    allow_hardlinks: bool = False,
) -> AppendResult:
    """Append ``text`` (one note) to ``path``, creating the file and its folder if needed.

    ``header`` is written before the note only when the file is new or empty. Raises
    :class:`UsageError` for empty text and :class:`StorageError` when the file cannot be
    written (a symlink, hard link or folder in the way, no permission, lock held too long).
    """
    note = text.strip("\n")
    if not note.strip():
        raise UsageError("nothing to write: the note is empty")
    body = (note.rstrip() + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create folder {path.parent}: {exc.strerror}") from exc
    with exclusive_lock(path.parent / LOCK_NAME, lock_wait_s):
        return _append_locked(path, body, header.encode("utf-8"), allow_hardlinks)


@contextmanager
def exclusive_lock(lock_path: Path, wait_s: float = _LOCK_WAIT_S) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path``, waiting up to ``wait_s`` seconds for it
    (:class:`StorageError` after that). Session transcripts take the same lock as notes.

    Appends hold it for a few milliseconds (mostly ``fsync``), so waiters poll at 0.5-5 ms
    rather than sleeping long: six processes appending at once stay close to one at a time.
    """
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | _CLOEXEC, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open lock file {lock_path}: {exc.strerror}") from exc
    try:
        deadline = time.monotonic() + wait_s
        delay = 0.0005
        while not try_lock(fd):
            if time.monotonic() >= deadline:
                raise StorageError(f"{lock_path} has been locked by another writer for {wait_s:g}s")
            time.sleep(delay)
            delay = min(delay * 2, 0.005)
        try:
            yield
        finally:
            unlock(fd)
    finally:
        os.close(fd)


def replace_text(
    path: Path,
    text: str,
    *,
    expected: str | None,
    lock_wait_s: float = _LOCK_WAIT_S,
    allow_hardlinks: bool = False,
) -> None:
    """Replace ``path``'s content with ``text`` atomically (temporary file, ``fsync``, rename).

    ``expected`` is what the caller read: the file's text, or ``None`` for a file that did not
    exist. If the file holds anything else by the time the lock is held (another writer got
    there first), nothing is written and :class:`StorageError` says so. The file keeps its
    permission bits. A symlink, a non-regular file or (unless ``allow_hardlinks``) a file with
    several hard links is refused, as for :func:`append_note`.
    """
    data = text.encode("utf-8")
    with exclusive_lock(path.parent / LOCK_NAME, lock_wait_s):
        current, mode = _read_current(path, allow_hardlinks)
        if current != (None if expected is None else expected.encode("utf-8")):
            raise StorageError(
                f"{path} changed since it was read; nothing was written",
                hint="run the command again to work from the current file",
            )
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
        try:
            fd = os.open(tmp, flags, mode)
        except FileExistsError:
            tmp.unlink()
            fd = os.open(tmp, flags, mode)
        except OSError as exc:
            raise StorageError(f"cannot create {tmp}: {exc.strerror}") from exc
        try:
            try:
                write_all(fd, data, tmp)
                if hasattr(os, "fchmod"):  # the umask narrowed os.open's mode
                    os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except BaseException:
            with suppress(OSError):
                tmp.unlink()
            raise
        _fsync_dir(path.parent)


def _read_current(path: Path, allow_hardlinks: bool) -> tuple[bytes | None, int]:
    """The file's bytes (``None`` if absent) and the permission bits a replacement gets."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY)
    except FileNotFoundError:
        return None, 0o644
    except OSError as exc:
        raise StorageError(f"cannot open {path}: {exc.strerror}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StorageError(f"{path} is not a regular file; refusing to replace it")
        if st.st_nlink > 1 and not allow_hardlinks:
            raise StorageError(
                f"{path} has {st.st_nlink} hard links and one may be outside the workspace; "
                "refusing to replace it (set limits.allow_hardlinks = true to allow)"
            )
        chunks = []
        while chunk := os.read(fd, _READ_CHUNK):
            chunks.append(chunk)
        return b"".join(chunks), stat.S_IMODE(st.st_mode)
    finally:
        os.close(fd)


def _append_locked(path: Path, body: bytes, header: bytes, allow_hardlinks: bool) -> AppendResult:
    # O_NONBLOCK: opening a FIFO planted at the target fails at once instead of hanging; it
    # changes nothing for regular files. One descriptor is checked, scanned and written, so
    # the file cannot be swapped between the check and the write.
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open {path} for appending: {exc.strerror}") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise StorageError(f"{path} is not a regular file; refusing to append to it")
        if st.st_nlink > 1 and not allow_hardlinks:
            raise StorageError(
                f"{path} has {st.st_nlink} hard links and one may be outside the workspace; "
                "refusing to append to it (set limits.allow_hardlinks = true to allow)"
            )
        newlines, tail = _scan(fd, st.st_size)
        if st.st_size == 0:
            prefix = header
        elif tail.endswith(b"\n\n"):
            prefix = b""
        elif tail.endswith(b"\n"):
            prefix = b"\n"
        else:  # an earlier write was cut short, or the user left no final newline
            prefix = b"\n\n"
        data = prefix + body
        write_all(fd, data, path)
        os.fsync(fd)
    finally:
        os.close(fd)
    if st.st_size == 0:
        _fsync_dir(path.parent)
    start = newlines + prefix.count(b"\n") + 1
    return AppendResult(
        path=path,
        bytes_written=len(data),
        created=st.st_size == 0,
        start_line=start,
        end_line=start + body.count(b"\n") - 1,
        size=st.st_size + len(data),
    )


def _scan(fd: int, size: int) -> tuple[int, bytes]:
    """Count the newlines in the first ``size`` bytes and return them with the last two bytes.

    Reading moves the offset, which ``O_APPEND`` writes ignore.
    """
    newlines = 0
    last = b""
    os.lseek(fd, 0, os.SEEK_SET)
    remaining = size
    while remaining > 0:
        chunk = os.read(fd, min(_READ_CHUNK, remaining))
        if not chunk:
            break
        newlines += chunk.count(b"\n")
        last = (last + chunk)[-2:]
        remaining -= len(chunk)
    return newlines, last


def write_all(fd: int, data: bytes, path: Path) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less); a failure is a
    :class:`~memdir.errors.StorageError` naming ``path``."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except OSError as exc:
            raise StorageError(f"writing {path} failed: {exc.strerror}") from exc
        view = view[written:]


def _fsync_dir(folder: Path) -> None:
    """Make a new file's directory entry durable (POSIX; a no-op where folders can't be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a folder; the data itself is already synced
    finally:
        os.close(fd)
