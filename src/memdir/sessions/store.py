"""Where a session lives on disk: ``<sessions.dir>/<session-id>.jsonl``, the transcript, and
``<session-id>.meta.json``, its state.

**The transcript is append-only.** Every append takes the folder's write lock (the one memdir's
note writer uses, :data:`memdir.writer.LOCK_NAME`), opens the file with ``O_APPEND`` and writes
all the lines of one message in one ``write`` call, then ``fsync`` s: lines from two processes
never interleave, and a reader sees whole lines or a torn last one. A torn last line (a crash
mid-write) is left as it is and reported by the reader; the next append first ends it with a
newline, so the new record starts on a line of its own. A new file starts with the session
header record.

**The state file** keeps what must survive a restart: the compaction count, the cycle of the
last flush (at most one flush per compaction cycle), how far the flushes have read, and whether
the session-memory hook ran. It is replaced atomically (a temporary file, ``fsync``, rename)
under the same lock, read again before every change, so two processes sharing a session do not
undo each other's changes. A state file that is damaged is set aside as ``….meta.json.bad`` and
rebuilt from the transcript, with a warning: the next flush may then run once more rather than
be missed.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from memdir.errors import StorageError, UsageError
from memdir.writer import LOCK_NAME, exclusive_lock, write_all

__all__ = [
    "SESSION_ID",
    "SessionState",
    "SessionStore",
    "check_session_id",
    "new_session_id",
]

log = logging.getLogger(__name__)

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
"""A session id: letters, digits, ``-`` and ``_`` (a UUID, say), at most 128 characters."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_STATE_VERSION = 1


def new_session_id() -> str:
    """A fresh session id (a random UUID, as OpenClaw and Claude Code use)."""
    return str(uuid.uuid4())


def check_session_id(session_id: object) -> str:
    """``session_id`` if it can name a transcript file, else :class:`UsageError`."""
    if not isinstance(session_id, str) or not SESSION_ID.fullmatch(session_id):
        raise UsageError(
            f"session id {session_id!r} must be 1-128 letters, digits, '-' or '_' "
            "(starting with a letter or digit), e.g. a UUID"
        )
    if session_id == "sessions":
        raise UsageError("session id 'sessions' is reserved (sessions.json is OpenClaw's index)")
    return session_id


@dataclass(frozen=True, slots=True)
class SessionState:
    """What a session remembers between runs.

    ``compaction_count`` counts the compactions reported (or inferred); ``flush_cycle`` is the
    compaction count when the last flush ran (``None``: never), so a flush is due again only
    once the count has moved on. ``flushed_through`` is the id of the last message a flush read;
    ``flush_tokens`` the projected tokens that triggered it. ``compacted_at_bytes`` is the
    transcript's size at the last compaction (the size trigger counts from there).
    """

    session_id: str
    created_at: int = 0
    compaction_count: int = 0
    flush_cycle: int | None = None
    flush_at: int | None = None
    flush_count: int = 0
    flushed_through: str = ""
    flush_tokens: int | None = None
    compacted_at_bytes: int = 0
    ended_at: int | None = None
    end_reason: str = ""
    memory_file: str = ""

    @property
    def flushed_this_cycle(self) -> bool:
        """A flush already ran since the last compaction (spec §11.2's dedupe)."""
        return self.flush_cycle is not None and self.flush_cycle == self.compaction_count

    def to_json(self) -> dict[str, object]:
        """The state file's content; the upstream names where OpenClaw has one."""
        return {
            "version": _STATE_VERSION,
            "sessionId": self.session_id,
            "createdAt": self.created_at,
            "compactionCount": self.compaction_count,
            "memoryFlushCompactionCount": self.flush_cycle,
            "memoryFlushAt": self.flush_at,
            "memoryFlushCount": self.flush_count,
            "memoryFlushedThrough": self.flushed_through,
            "memoryFlushTokens": self.flush_tokens,
            "compactedAtBytes": self.compacted_at_bytes,
            "endedAt": self.ended_at,
            "endReason": self.end_reason,
            "sessionMemoryFile": self.memory_file,
        }

    @classmethod
    def from_json(cls, data: object, session_id: str) -> SessionState:
        """Read a state file's content; :class:`ValueError` when it is not one."""
        if not isinstance(data, dict) or data.get("sessionId") != session_id:
            raise ValueError("not the state of this session")
        names = {
            "createdAt": "created_at",
            "compactionCount": "compaction_count",
            "memoryFlushCompactionCount": "flush_cycle",
            "memoryFlushAt": "flush_at",
            "memoryFlushCount": "flush_count",
            "memoryFlushedThrough": "flushed_through",
            "memoryFlushTokens": "flush_tokens",
            "compactedAtBytes": "compacted_at_bytes",
            "endedAt": "ended_at",
            "endReason": "end_reason",
            "sessionMemoryFile": "memory_file",
        }
        defaults = {f.name: f.default for f in fields(cls)}
        values: dict[str, object] = {"session_id": session_id}
        for key, name in names.items():
            value = data.get(key, defaults[name])
            default = defaults[name]
            if isinstance(default, str):
                ok = isinstance(value, str)
            else:  # ints, or None for "not yet"
                ok = (value is None and default is None) or (
                    isinstance(value, int) and not isinstance(value, bool) and value >= 0
                )
            if not ok:
                raise ValueError(f"{key} = {value!r} is not valid")
            values[name] = value
        return cls(**values)  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class SessionStore:
    """The transcript and state files of one session in ``folder`` (created when first written)."""

    def __init__(self, folder: Path, session_id: str, *, fsync: bool = True) -> None:
        self.folder = folder
        self.session_id = check_session_id(session_id)
        self.path = folder / f"{session_id}.jsonl"
        self.state_path = folder / f"{session_id}.meta.json"
        self.fsync = fsync
        self.warnings: list[str] = []
        """Problems met along the way (a damaged state file set aside), for the caller."""

    # -- transcript ------------------------------------------------------------------------
    def transcript_size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise StorageError(f"cannot stat transcript {self.path}: {exc.strerror}") from exc

    def append(self, records: Sequence[dict[str, object]], *, header: dict[str, object]) -> None:
        """Append ``records``, one JSON line each, in one write; ``header`` first if the file is
        new. Raises :class:`StorageError` when the transcript cannot be written."""
        data = b"".join(_line(r) for r in records)
        if not data:
            return
        self._mkdir()
        with exclusive_lock(self.folder / LOCK_NAME):
            fd = self._open_transcript()
            try:
                size = os.fstat(fd).st_size
                if size == 0:
                    prefix = _line(header)
                elif _last_byte(fd, size) != b"\n":
                    prefix = b"\n"  # end a torn last line; the reader reports it
                else:
                    prefix = b""
                write_all(fd, prefix + data, self.path)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)

    def _open_transcript(self) -> int:
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            raise StorageError(
                f"cannot open transcript {self.path} for appending: {exc.strerror}"
            ) from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise StorageError(f"{self.path} is not a regular file; refusing to append to it")
        return fd

    def _mkdir(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create sessions folder {self.folder}: {exc.strerror}"
            ) from exc

    # -- state -----------------------------------------------------------------------------
    def load_state(
        self, rebuild: Callable[[], SessionState], *, repair: bool = True
    ) -> SessionState:
        """The saved state; ``rebuild()`` when there is none or it is damaged (a damaged file
        is then moved aside, unless ``repair`` is off: reading alone changes nothing)."""
        try:
            raw = self.state_path.read_bytes()
        except FileNotFoundError:
            return rebuild()
        except OSError as exc:
            raise StorageError(f"cannot read {self.state_path}: {exc.strerror}") from exc
        try:
            return SessionState.from_json(json.loads(raw), self.session_id)
        except ValueError as exc:
            if not repair:
                self._warn(
                    f"{self.state_path.name} is damaged ({exc}); using a state rebuilt from "
                    "the transcript until the next change replaces it"
                )
                return rebuild()
            return self._set_aside(exc, rebuild)

    def _set_aside(self, exc: ValueError, rebuild: Callable[[], SessionState]) -> SessionState:
        bad = self.state_path.with_name(self.state_path.name + ".bad")
        try:
            os.replace(self.state_path, bad)
        except OSError as move_error:
            raise StorageError(
                f"{self.state_path} is damaged ({exc}) and cannot be moved aside: "
                f"{move_error.strerror}"
            ) from move_error
        message = (
            f"{self.state_path.name} was damaged ({exc}); moved to {bad.name} and rebuilt "
            "from the transcript (the next flush may run once more)"
        )
        self._warn(message)
        return rebuild()

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            log.warning("%s", message)
            self.warnings.append(message)

    def update(
        self, change: Callable[[SessionState], SessionState], rebuild: Callable[[], SessionState]
    ) -> SessionState:
        """Apply ``change`` to the state as saved now and save the result atomically."""
        self._mkdir()
        with exclusive_lock(self.folder / LOCK_NAME):
            state = change(self.load_state(rebuild))
            self._save(state)
        return state

    def _save(self, state: SessionState) -> None:
        temp = self.state_path.with_name(f".{self.state_path.name}.{os.getpid()}.tmp")
        data = (json.dumps(state.to_json(), indent=2) + "\n").encode("utf-8")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _CLOEXEC | _BINARY, 0o644)
            try:
                write_all(fd, data, temp)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, self.state_path)
        except OSError as exc:
            temp.unlink(missing_ok=True)
            raise StorageError(f"cannot save {self.state_path}: {exc.strerror}") from exc


def _last_byte(fd: int, size: int) -> bytes:
    """The file's last byte (the read offset is apart from where ``O_APPEND`` writes go)."""
    os.lseek(fd, size - 1, os.SEEK_SET)
    return os.read(fd, 1)


def _line(record: dict[str, object]) -> bytes:
    try:
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate: JSON can still carry it, escaped
        return json.dumps(record, separators=(",", ":")).encode("ascii") + b"\n"
