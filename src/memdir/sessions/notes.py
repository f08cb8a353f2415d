"""Writing what a session captured into the workspace's memory files.

* :func:`target` gives the absolute path of a workspace-relative file after refusing a symlink
  anywhere on the way (the rule ``memory_write`` applies); the write itself is
  :func:`memdir.writer.append_note` (locked, ``O_APPEND``, never rewriting what is there).
* :func:`fresh_lines` keeps the lines of a new note that the file does not already say:
  compared case-, width- and punctuation-blind, with list markers ignored, and a line also
  counts as said when it is contained in one line of the file (at least 16 letters or digits
  long). Repeats inside the note go too, and so do headings left with nothing under them.
* :func:`create_new` makes a new file under a name nobody uses yet (``name.md``, then
  ``name-2.md``, …): a file is never overwritten.
* :func:`user_zone` is the ``timezone`` setting, or the system's zone when it is empty.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

from memdir.config import Config
from memdir.errors import PathError, StorageError

__all__ = ["clean_reply", "create_new", "fresh_lines", "read_text", "target", "user_zone"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_MARKER = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+•]|\d{1,3}[.)])\s+)?(?:\[[ xX]\]\s+)?")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_MIN_CONTAINED = 16


def user_zone(config: Config) -> tuple[tzinfo, str]:
    """The user's time zone and its name: the ``timezone`` setting, else the system's."""
    name = config["timezone"]
    if name:
        return ZoneInfo(name), name
    local = datetime.now().astimezone()
    return local.tzinfo or UTC, local.tzname() or "local time"


def target(root: Path, rel: str) -> Path:
    """``root / rel`` for writing; :class:`PathError` if a symlink is on the way."""
    current = root
    for part in rel.split("/"):
        current = current / part
        if current.is_symlink():
            raise PathError(
                f"{rel!r} goes through a symlink ({current.relative_to(root)}); "
                "memdir writes only to real files inside the workspace",
                code="symlink",
                path=rel,
            )
    return current


def read_text(path: Path) -> str:
    """The file's text ("" when it does not exist), not following a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def _key(line: str) -> str:
    """A line compared case-, width- and punctuation-blind, its list marker dropped."""
    text = _MARKER.sub("", line, count=1)
    return "".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


class KnownLines:
    """The keys (see :func:`_key`) of lines already said. A key is known when it equals one,
    or, from ``_MIN_CONTAINED`` characters on, when it is part of one."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._keys = {k for k in keys if k}
        self._text = "\n".join(self._keys)

    def add(self, key: str) -> bool:
        """Remember ``key``; False when it is empty or already known."""
        if not key or key in self._keys:
            return False
        if len(key) >= _MIN_CONTAINED and key in self._text:
            return False
        self._keys.add(key)
        self._text += "\n" + key
        return True


def clean_reply(text: str) -> str:
    """A model's note without the code fence it may be wrapped in, or trailing white space."""
    lines = text.strip().splitlines()
    if len(lines) >= 2 and _FENCE.match(lines[0]) and _FENCE.match(lines[-1]):
        lines = lines[1:-1]
    return "\n".join(line.rstrip() for line in lines).strip()


def fresh_lines(note: str, existing: str) -> str:
    """The lines of ``note`` that ``existing`` does not already say (see the module docstring)."""
    known = KnownLines(map(_key, existing.splitlines()))
    kept: list[str] = []
    pending_heading: list[str] = []
    for line in note.splitlines():
        if not line.strip():
            continue
        if _HEADING.match(line):
            pending_heading = [line]
            continue
        if not known.add(_key(line)):
            continue
        if pending_heading:
            if kept:
                kept.append("")
            kept.extend([*pending_heading, ""])
            pending_heading = []
        kept.append(line.rstrip())
    return "\n".join(kept)


def create_new(root: Path, folder: str, stem: str) -> tuple[str, Path]:
    """Create an empty ``folder/stem.md`` (or ``stem-2.md``, …) under ``root`` and return its
    workspace-relative and absolute paths. Creation is exclusive, so two writers never get the
    same file and an existing one is never replaced."""
    directory = target(root, folder)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create folder {directory}: {exc.strerror}") from exc
    for n in range(1, 1000):
        name = f"{stem}.md" if n == 1 else f"{stem}-{n}.md"
        path = directory / name
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o644)
        except FileExistsError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot create {path}: {exc.strerror}") from exc
        os.close(fd)
        return f"{folder}/{name}", path
    raise StorageError(f"{directory} already has {stem}.md and 998 numbered variants")
