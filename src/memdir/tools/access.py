"""Who may see and write what: scopes, agent namespaces and private files.

A tool call runs for a **caller**: a scope (``main`` for a private one-to-one session with the
user, ``group`` or ``shared`` otherwise) and an optional agent id.

* **Namespaces.** ``memory/agents/<id>/`` belongs to agent ``<id>``: only that agent sees it
  (search) or reads it (``memory_get``), and its notes are written there. A caller without an
  agent id sees no agent folder. Everything else is shared.
* **Scopes.** Outside ``main``, long-term memory (``MEMORY.md``, ``memory.md``, and an agent's
  own ``MEMORY.md``) and private files are hidden and unreadable, session transcripts are not
  searched or read, and long-term memory cannot be written. A file is private when it is under
  ``memory/private/`` (or an agent's ``private/`` folder) or starts with YAML front matter
  holding ``private: true``.

Rules apply to the path as given **and** to where it really leads, so a symlink inside the
workspace cannot expose another agent's folder or a private file. Folder names are compared
case-insensitively, so ``memory/PRIVATE/`` is private on a case-insensitive file system too.
Front matter is read from the file itself, cached by path and ``(mtime, size, inode)``: a file
marked private is hidden from the next call on, even before the index catches up.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

from memdir.config import AGENT_ID, SCOPES, Config, mapping_setting
from memdir.errors import PathError, UsageError
from memdir.workspace import OpenFile, Workspace

__all__ = ["AccessPolicy", "PrivateMarks", "check_agent_id", "resolve_scope"]

_HEAD_BYTES = 8192
_PRIVATE_LINE = re.compile(r"private\s*:\s*['\"]?(?:true|yes|on)['\"]?\s*(?:#.*)?", re.IGNORECASE)


def check_agent_id(agent_id: str) -> str:
    """Return ``agent_id`` if it is a valid folder name, else raise :class:`UsageError`."""
    if not isinstance(agent_id, str) or not AGENT_ID.fullmatch(agent_id):
        raise UsageError(
            f"invalid agent id {agent_id!r}",
            hint="use 1-64 lowercase letters, digits, '-' or '_', starting with a letter or digit",
        )
    return agent_id


def resolve_scope(config: Config, *, scope: str | None, agent_id: str | None) -> str:
    """The scope of a call: the one given, else the agent's configured one, else the default."""
    if scope is not None:
        if scope not in SCOPES:
            raise UsageError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        return scope
    if agent_id is not None:
        per_agent = mapping_setting(config["tools.agent_scopes"])
        if agent_id in per_agent:
            return per_agent[agent_id]
    scope = config["tools.scope"]
    return str(scope)


def has_private_front_matter(head: bytes) -> bool:
    """Whether text starts with YAML front matter (``---`` … ``---``) holding ``private: true``."""
    lines = head.decode("utf-8", errors="replace").removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return False
    for line in lines[1:]:
        stripped = line.strip()
        if stripped in ("---", "..."):
            return False
        if _PRIVATE_LINE.fullmatch(stripped):
            return True
    return False


class PrivateMarks:
    """Which files carry ``private: true`` front matter, re-read only when a file changes."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int, int], bool]] = {}
        self._lock = threading.Lock()

    def is_private_open(self, opened: OpenFile) -> bool:
        """:meth:`is_private` for a file already open, read from its descriptor."""
        st = opened.stat
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        with self._lock:
            cached = self._cache.get(opened.real)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            if hasattr(os, "pread"):
                head = os.pread(opened.fd, _HEAD_BYTES, 0)
            else:  # Windows: no pread; the reader seeks back to the start anyway
                os.lseek(opened.fd, 0, os.SEEK_SET)
                head = os.read(opened.fd, _HEAD_BYTES)
        except OSError:
            return True
        marked = has_private_front_matter(head)
        with self._lock:
            self._cache[opened.real] = (stamp, marked)
        return marked

    def is_private(self, abs_path: str) -> bool:
        """True for a marked file, and for one that cannot be read (fail closed)."""
        try:
            st = os.stat(abs_path)
        except OSError:
            return True
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        with self._lock:
            cached = self._cache.get(abs_path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            with open(abs_path, "rb") as fh:
                marked = has_private_front_matter(fh.read(_HEAD_BYTES))
        except OSError:
            return True
        with self._lock:
            self._cache[abs_path] = (stamp, marked)
        return marked


class AccessPolicy:
    """The rules for one caller; built per call by :class:`memdir.tools.MemoryTools`."""

    def __init__(
        self, workspace: Workspace, *, scope: str, agent_id: str | None, marks: PrivateMarks
    ) -> None:
        self.workspace = workspace
        self.scope = scope
        self.agent_id = agent_id
        self.marks = marks
        self._root = str(workspace.root)
        self._real_root = str(workspace.real_root)

    @property
    def private_session(self) -> bool:
        return self.scope == "main"

    # -- path rules ------------------------------------------------------------------------
    def owner(self, rel: str) -> str | None:
        """The agent whose folder holds ``rel`` (``memory/agents/<id>/…``), else ``None``."""
        parts = rel.casefold().split("/")
        if len(parts) >= 4 and parts[0] == "memory" and parts[1] == "agents":
            return parts[2]
        return None

    def refusal(self, rel: str) -> PathError | None:
        """Why this caller may not see ``rel`` by its name alone, or ``None``."""
        parts = rel.casefold().split("/")
        owner = self.owner(rel)
        if owner is not None and owner != self.agent_id:
            return PathError(
                f"{rel!r} is in another agent's folder (memory/agents/{parts[2]}/)",
                code="other-agent",
                path=rel,
                hint="each agent reads only its own memory/agents/<id>/ folder and shared files",
            )
        if self.private_session:
            return None
        if self.workspace.is_session_path(rel):
            return PathError(
                f"{rel!r} is a session transcript, available only in the main (private) session",
                code="scope-sessions",
                path=rel,
            )
        own = parts[3:] if owner is not None else None
        if rel.casefold() == "memory.md" or own == ["memory.md"]:
            return PathError(
                f"{rel!r} is long-term memory, available only in the main (private) session",
                code="scope-long-term",
                path=rel,
            )
        if (parts[:2] == ["memory", "private"] and len(parts) > 2) or (own and own[0] == "private"):
            return PathError(
                f"{rel!r} is private, available only in the main (private) session",
                code="scope-private",
                path=rel,
            )
        return None

    def check_open(self, opened: OpenFile) -> None:
        """Raise :class:`PathError` if this caller may not read an opened file (the ``check`` of
        :meth:`memdir.Memory.get`): its name, where it really leads and its front matter, all
        taken from the file that was opened."""
        refused = self.refusal(opened.rel)
        if refused is None:
            refused = self._refusal_of_target(opened.rel, str(opened.path), opened=opened)
        if refused is not None:
            raise refused

    def _refusal_of_target(
        self, rel: str, abs_path: str, *, opened: OpenFile | None = None
    ) -> PathError | None:
        real = opened.real if opened is not None else os.path.realpath(abs_path)
        if real.startswith(self._real_root + os.sep):
            real_rel = real[len(self._real_root) + 1 :].replace(os.sep, "/")
            if real_rel != rel:
                refused = self.refusal(real_rel)
                if refused is not None:
                    return PathError(
                        f"{rel!r} leads to {real_rel!r}: {refused.message}",
                        code=refused.code,
                        path=rel,
                    )
        if not self.private_session and (
            self.marks.is_private_open(opened)
            if opened is not None
            else self.marks.is_private(abs_path)
        ):
            return PathError(
                f"{rel!r} is marked private (front matter), available only in the main session",
                code="scope-private",
                path=rel,
            )
        return None

    # -- search ----------------------------------------------------------------------------
    def search_filter(self, namespace: str | None) -> Callable[[str, str], bool]:
        """``path_filter`` for :meth:`memdir.Memory.search`: keep only what this caller may see.

        ``namespace`` ``"agent"`` keeps only the caller's own folder, ``"shared"`` only files
        outside every agent folder, ``None`` both.
        """
        decided: dict[tuple[str, str], bool] = {}

        def visible(path: str, source: str) -> bool:
            key = (path, source)
            if key not in decided:
                decided[key] = self._visible(path, source, namespace)
            return decided[key]

        return visible

    def sees_sessions(self, namespace: str | None) -> bool:
        """Whether this caller's searches in ``namespace`` may return session transcripts:
        only in the main (private) session, and never in its own agent folder alone."""
        return self.private_session and namespace != "agent"

    def _visible(self, path: str, source: str, namespace: str | None) -> bool:
        if source != "memory":
            return self.sees_sessions(namespace)
        owner = self.owner(path)
        if namespace == "agent" and (owner is None or owner != self.agent_id):
            return False
        if namespace == "shared" and owner is not None:
            return False
        if self.refusal(path) is not None:
            return False
        return self._refusal_of_target(path, os.path.join(self._root, path)) is None

    # -- writing ---------------------------------------------------------------------------
    def writable(self, rel: str) -> Path:
        """The absolute path for writing ``rel``; refuses symlinks anywhere on the way."""
        current = self.workspace.root
        for part in rel.split("/"):
            current = current / part
            if current.is_symlink():
                raise PathError(
                    f"{rel!r} goes through a symlink ({current.relative_to(self.workspace.root)}); "
                    "memdir writes only to real files inside the workspace",
                    code="symlink",
                    path=rel,
                )
        return current
