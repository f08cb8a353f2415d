"""The workspace: which files are memory, and the one place paths are resolved and checked.

Memory is ``MEMORY.md`` / ``memory.md`` at the workspace root, every Markdown file under
``memory/``, any configured extra paths, and (when the ``sessions`` source is on) JSONL session
transcripts. One rule decides what may be indexed and read, and discovery and
:meth:`Workspace.open_readable` (``memory_get``, ``memdir get``) both apply it, so search never
returns a path that ``get`` refuses and ``get`` never reads a file discovery would not index
(``DREAMS.md`` is the one file ``get`` reads that is not indexed):

* **Names.** A file's workspace-relative path must be one a user could type back: valid
  UTF-8, no character that looks like a separator, no leading or trailing space, no ambiguous
  backslash (see :meth:`Workspace.normalize`). Other files are skipped with a warning.
* **Links.** A symlink is followed only when the file it *really* leads to is itself a memory
  file (or a session transcript for a session path): one leaving the workspace, an extra path
  or the sessions folder is refused, and so is one to a non-memory file inside the workspace
  (``memory/env.md -> ../.env``). A regular file with more than one hard link is refused unless
  ``limits.allow_hardlinks`` is on, since the other link may be a file outside the workspace.
* **Content.** Binary (NUL bytes in the first 8 KiB) and oversized files are skipped with a
  warning naming the file; invalid UTF-8 is decoded with replacement characters and reported.

Files are opened once, without letting the kernel follow links (:func:`open_no_follow`), and
the checks are made on what was opened, so swapping a link between a check and the read
cannot redirect the read.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from memdir.config import STATE_DIRNAME, Config
from memdir.errors import PathError, UsageError
from memdir.text import is_utf8_encodable

__all__ = [
    "IGNORED_DIRS",
    "Discovery",
    "FileText",
    "OpenFile",
    "Problem",
    "SourceFile",
    "Workspace",
    "is_markdown_name",
    "open_no_follow",
    "split_citation",
]

log = logging.getLogger(__name__)

IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".pnpm-store",
        ".venv",
        "venv",
        ".tox",
        "__pycache__",
        STATE_DIRNAME,
    }
)
ROOT_FILES = ("MEMORY.md", "memory.md")
READABLE_ROOT_FILES = (*ROOT_FILES, "DREAMS.md")
_SESSION_NAME = re.compile(
    r"^(?!sessions\.json)[^/]+\.jsonl(\.(reset|deleted)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z)?$"
)
_MAX_PATH_CHARS = 1024
# Characters that look like '/', '\\' or '.' (fullwidth, division slash, dot leaders…): a path
# holding one is refused, so what an agent or a log shows is what is read.
_LOOKALIKES = re.compile(
    "[\u2024\u2025\u2044\u2215\u2216\u29f5\u29f8\ufe52\ufe68\uff0e\uff0f\uff3c]"
)
_BINARY_SNIFF = 8192
# Paths that pass every syntax check unchanged (discovery's fast path; others are checked).
_PLAIN_PATH = re.compile(r"[\w-][\w .-]*(?:/[\w-][\w .-]*)*", re.ASCII)
_CITED_LINES = re.compile(r"#L(\d+)(?:-L?(\d+))?$")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_PATH (Linux) walks through a folder without needing permission to list it.
_OPEN_DIR = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_PATH", 0)
_OPEN_FILE = (
    os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
)
_WALKS = bool(_NOFOLLOW and _DIRECTORY) and {os.open, os.readlink} <= os.supports_dir_fd
_MAX_LINKS = 40


def open_no_follow(path: str) -> tuple[int, str]:
    """Open the file at the absolute ``path`` for reading; return the descriptor and real path.

    The kernel is never left to follow a link: each component is opened with ``O_NOFOLLOW``
    relative to the descriptor of the folder before it, and a symlink met on the way is read
    (``readlink``) and its text walked the same way. The real path returned is the chain of
    names actually opened, so it is where the descriptor's file was when it was opened, however
    links change meanwhile. The last component is opened ``O_NONBLOCK`` (a FIFO does not hang);
    check the descriptor with ``os.fstat``. Without descriptor-relative opening (Windows) the
    file is opened by path and refused unless it is the file ``os.path.realpath`` names.
    Raises :class:`OSError` (``ELOOP`` after 40 links).
    """
    if not _WALKS:
        return _open_by_path(path)
    todo = path.split("/")
    todo.reverse()
    fds = [os.open("/", _OPEN_DIR)]
    names: list[str] = []
    links = 0
    try:
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if names:
                    os.close(fds.pop())
                    names.pop()
                continue
            try:
                fd = os.open(part, _OPEN_DIR if todo else _OPEN_FILE, dir_fd=fds[-1])
            except OSError as exc:
                try:
                    target = os.readlink(part, dir_fd=fds[-1])
                except OSError:
                    raise exc from None
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path) from None
                if target.startswith("/"):
                    while names:
                        os.close(fds.pop())
                        names.pop()
                todo.extend(reversed(target.split("/")))
                continue
            fds.append(fd)
            names.append(part)
        return fds.pop(), "/" + "/".join(names)
    finally:
        for fd in fds:
            os.close(fd)


def _open_by_path(path: str) -> tuple[int, str]:
    fd = os.open(path, _OPEN_FILE)
    try:
        real = os.path.realpath(path)
        if not os.path.samestat(os.fstat(fd), os.stat(real)):
            raise OSError(errno.EAGAIN, "the file changed while it was opened", path)
    except BaseException:
        os.close(fd)
        raise
    return fd, real


def split_citation(raw: str) -> tuple[str, int | None, int | None]:
    """Split a citation into ``(path, first line, line count)``; counts are ``None`` for a path.

    Every form memdir prints or documents is accepted: ``path#L3``, ``path#L3-L5`` (search
    results and tool output), ``path:3`` and ``path:3-5`` (``memdir get``). No memory file
    name ends like that (Markdown names end in ``.md``, transcripts in ``.jsonl`` or a
    timestamp), so the split is never ambiguous. A malformed range raises :class:`UsageError`.
    """
    text = raw.rstrip() if isinstance(raw, str) else raw
    if not isinstance(text, str):
        return raw, None, None
    cited = _CITED_LINES.search(text)
    if cited is not None:
        path, span = text[: cited.start()], cited.group(0)[1:]
        first, last = int(cited[1]), int(cited[2] or cited[1])
    else:
        path, sep, span = text.rpartition(":")
        if not sep or not span or not span.replace("-", "").isdigit():
            return raw, None, None
        first_s, dash, last_s = span.partition("-")
        if not first_s.isdigit() or (dash and not last_s.isdigit()):
            raise UsageError(f"bad line range in {raw!r}; use PATH:LINE or PATH:FROM-TO")
        first = int(first_s)
        last = int(last_s) if dash else first
    if first < 1:
        raise UsageError(f"line numbers start at 1, got {raw!r}")
    if last < first:
        raise UsageError(f"range {span!r} ends before it starts")
    return path, first, last - first + 1


def shown_name(path: str) -> str:
    """A file name as text that can be printed and stored: undecodable bytes as ``\\xff``."""
    try:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeError:
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def is_markdown_name(name: str) -> bool:
    """``.md`` or ``.markdown``, in any letter case."""
    low = name.lower()
    return low.endswith(".md") or low.endswith(".markdown")


@dataclass(frozen=True, slots=True)
class Problem:
    """A file that was skipped or read with a defect; ``kind`` is a short stable code."""

    path: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file the index should hold. ``path`` is the workspace-relative POSIX path shown to users."""

    path: str
    abs: str
    source: str
    size: int
    mtime_ns: int

    @property
    def abs_path(self) -> Path:
        """The absolute path (``abs`` is the same as a string, cheaper in bulk)."""
        return Path(self.abs)


@dataclass(slots=True)
class Discovery:
    files: list[SourceFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class FileText:
    """Decoded text of a file, or ``None`` with the problem that stopped it from being read."""

    text: str | None
    data: bytes
    problem: Problem | None = None


@dataclass(slots=True)
class OpenFile:
    """A memory file opened for reading by :meth:`Workspace.open_readable`; close it (or use
    ``with``). ``source`` is ``memory`` or ``sessions``, ``real`` the real path of the opened
    file, ``stat`` its ``fstat``, ``path`` the absolute path it was opened by."""

    rel: str
    source: str
    real: str
    stat: os.stat_result
    fd: int
    path: Path

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> OpenFile:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class _Roots:
    """Where memory lives, as given (lexical) or as real paths; the ``*_s`` fields and
    ``trees`` (``memory/`` and extra folders, each ending in a separator) are the same as
    strings, since discovery tests every file against them."""

    root: Path
    extras: tuple[tuple[Path, bool], ...]  # (path, is a folder)
    sessions: Path
    root_s: str
    sessions_s: str
    trees: tuple[str, ...]
    extra_files: frozenset[str]

    @classmethod
    def of(
        cls,
        root: Path,
        memory_dirs: tuple[Path, ...],
        extras: tuple[tuple[Path, bool], ...],
        sessions: Path,
    ) -> _Roots:
        trees = (*memory_dirs, *(e for e, is_dir in extras if is_dir))
        return cls(
            root,
            extras,
            sessions,
            str(root),
            str(sessions),
            tuple(_as_folder(str(t)) for t in trees),
            frozenset(str(e) for e, is_dir in extras if not is_dir),
        )


_TREE_FOLDERS_KEPT = 65_536  # folders remembered by Workspace._folder_in_tree


def _as_folder(path: str) -> str:
    return path if path.endswith(os.sep) else path + os.sep


class _Refusal(Exception):
    """Why a file may not be read: ``code`` (a :class:`PathError` code / problem kind) and a
    ``reason`` phrased to follow the file's path."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


_Add = Callable[..., None]


def _rel(root: Path, target: Path) -> str:
    return Path(os.path.relpath(target, root)).as_posix()


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class Workspace:
    """Discovery and path checks for one workspace, as configured."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.root = config.workspace
        self.real_root = Path(os.path.realpath(self.root))
        self.max_file_bytes: int = config["limits.max_file_bytes"]
        self.allow_hardlinks: bool = config["limits.allow_hardlinks"]
        self.sources: tuple[str, ...] = tuple(config["sources"])
        self.sessions_dir = config.path("sessions.dir")
        self.extra_paths: tuple[Path, ...] = tuple(dict.fromkeys(config.path_list("extra_paths")))
        # Compared with normalised paths ("ws/../team" is "team"), so normalised too.
        self._extras = tuple(dict.fromkeys(Path(os.path.normpath(p)) for p in self.extra_paths))
        self._real: _Roots | None = None
        # Whether a folder lies in a memory tree, per (trees, folder): discovery asks it of
        # every file, and the answer depends on the folder alone (bench/scale.py: the walk
        # of 10,000 files).
        self._tree_folders: dict[tuple[tuple[str, ...], str], bool] = {}

    # -- roots ---------------------------------------------------------------------------
    def allowed_roots(self) -> list[Path]:
        """Real paths under which reading is allowed (workspace, extra paths, sessions dir)."""
        return self._allowed(self._real_roots())

    def _allowed(self, roots: _Roots) -> list[Path]:
        allowed = [roots.root, *(e for e, _ in roots.extras)]
        if "sessions" in self.sources:
            allowed.append(roots.sessions)
        return allowed

    def _lexical_roots(self) -> _Roots:
        extras = tuple((e, os.path.isdir(e)) for e in self._extras)
        return _Roots.of(self.root, (self.root / "memory",), extras, self.sessions_dir)

    def _real_roots(self) -> _Roots:
        """The memory roots as real paths, looked up now (links and extra paths may change)."""
        memory = Path(os.path.realpath(self.root / "memory"))
        extras = []
        for extra in self.extra_paths:
            real = Path(os.path.realpath(extra))
            extras.append((real, os.path.isdir(real)))
        self._real = _Roots.of(
            self.real_root,
            (memory,) if _inside(memory, self.real_root) else (),
            tuple(extras),
            Path(os.path.realpath(self.sessions_dir)),
        )
        return self._real

    def _kind(self, path: Path | str, roots: _Roots) -> str | None:
        """``"memory"`` or ``"sessions"`` when discovery indexes a file at ``path`` (given as
        ``roots`` are: lexical or real), else ``None``. The one rule of what memory is."""
        text = os.fspath(path)
        parent, name = os.path.split(text)
        if "sessions" in self.sources and parent == roots.sessions_s and _SESSION_NAME.match(name):
            return "sessions"
        if "memory" not in self.sources or not is_markdown_name(name):
            return None
        if (parent == roots.root_s and name in ROOT_FILES) or text in roots.extra_files:
            return "memory"
        # As _in_tree(text, folder=False), asked of the folder once: a file name ending in .md
        # is never an ignored folder's name, but it is checked all the same.
        if name in IGNORED_DIRS:
            return None
        return "memory" if self._folder_in_tree(parent, roots) else None

    def _folder_in_tree(self, folder: str, roots: _Roots) -> bool:
        key = (roots.trees, folder)
        known = self._tree_folders.get(key)
        if known is None:
            if len(self._tree_folders) >= _TREE_FOLDERS_KEPT:
                self._tree_folders.clear()
            known = self._tree_folders[key] = self._in_tree(folder, roots)
        return known

    def _in_tree(self, path: Path | str, roots: _Roots, *, folder: bool = True) -> bool:
        """Whether ``path`` is in ``memory/`` or an extra folder, outside ignored folders."""
        text = _as_folder(os.fspath(path)) if folder else os.fspath(path)
        for top in roots.trees:
            if text.startswith(top) and IGNORED_DIRS.isdisjoint(text[len(top) :].split(os.sep)):
                return True
        return False

    def _link_problem(self, path: str | Path, real: str | Path, roots: _Roots) -> Problem:
        """The problem of a link (or a file reached through one) that leads where it may not."""
        real = Path(real)
        if not any(_inside(real, r) for r in self._allowed(roots)):
            return Problem(
                _rel(self.root, Path(path)),
                "symlink-escape",
                f"symlink to {real} leaves the workspace; skipped",
            )
        return Problem(
            _rel(self.root, Path(path)),
            "symlink-not-memory",
            f"symlink to {shown_name(_rel(self.real_root, real))} leads to a file that is not "
            "memory; skipped (a link may only lead to another memory file)",
        )

    def _listing_problem(
        self, rel: str, source: str, st: os.stat_result, real: str | Path, roots: _Roots
    ) -> Problem | None:
        """Why discovery skips a file it listed, by the same rules :meth:`open_readable` applies."""
        if len(rel) > _MAX_PATH_CHARS or not _PLAIN_PATH.fullmatch(rel):
            problem = self._name_problem(rel)
            if problem is not None:
                return problem
        if self._kind(real, roots) != source:
            return self._link_problem(self.root / rel, real, roots)
        if st.st_nlink > 1 and not self.allow_hardlinks:
            return Problem(rel, "hardlink", f"{_hardlink_reason(st)}; skipped")
        return None

    def _name_problem(self, rel: str) -> Problem | None:
        """Why ``rel`` cannot be given back to :meth:`open_readable` as it is, or ``None``."""
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:
            return Problem(
                shown_name(rel), "bad-name", "file name is not valid UTF-8; skipped (rename it)"
            )
        try:
            normal = self._check_syntax(rel)
        except PathError as exc:
            return Problem(rel, "bad-name", f"{exc.message}; skipped (rename it)")
        if normal != rel:
            return Problem(
                rel, "bad-name", f"the path cannot be given back as it is ({normal!r}); skipped"
            )
        return None

    # -- discovery -----------------------------------------------------------------------
    def discover(self) -> Discovery:
        """List every file the index should hold, with problems found on the way."""
        found = Discovery()
        seen: set[tuple[int, int]] = set()
        prefix = str(self.root) + os.sep
        roots = self._real_roots()

        def add(
            abs_path: str | Path,
            source: str,
            st: os.stat_result,
            display: str | None = None,
            *,
            real: str | Path,
        ) -> None:
            text = str(abs_path)
            if display:
                rel = display
            elif text.startswith(prefix):
                rel = text[len(prefix) :].replace(os.sep, "/")
            else:
                rel = _rel(self.root, Path(text))
            problem = self._listing_problem(rel, source, st, real, roots)
            if problem is not None:
                found.problems.append(problem)
                return
            # The same file reached twice (a symlink inside the workspace, overlapping extra
            # paths) is indexed once: identity is the inode the stat followed to.
            identity = (st.st_dev, st.st_ino)
            if identity in seen:
                return
            seen.add(identity)
            found.files.append(SourceFile(rel, text, source, st.st_size, st.st_mtime_ns))

        if "memory" in self.sources:
            for name in ROOT_FILES:
                self._add_file(self.root / name, roots, "memory", add, found, must_exist=False)
            self._walk(self.root / "memory", roots, add, found)
            for extra in self.extra_paths:
                self._add_extra(extra, roots, add, found)
        if "sessions" in self.sources:
            self._add_sessions(roots, add, found)
        return found

    def discover_paths(
        self, paths: Iterable[str | os.PathLike[str]]
    ) -> tuple[Discovery, list[str], bool]:
        """Apply the discovery rules to a few changed paths only (what a watcher reports).

        Returns the files to (re)index, the relative paths that no longer exist or are now
        refused (their rows should go), and whether a full scan is needed instead (a folder
        changed, or a path could not be classified cheaply).
        """
        found = Discovery()
        gone: list[str] = []
        roots = self._real_roots()
        for raw in paths:
            abs_path = Path(os.path.abspath(os.path.expanduser(str(raw))))
            try:
                lst: os.stat_result | None = abs_path.lstat()
            except FileNotFoundError:
                lst = None
            except OSError:
                return found, gone, True
            if lst is not None and (stat.S_ISDIR(lst.st_mode) or stat.S_ISLNK(lst.st_mode)):
                if any(p in IGNORED_DIRS for p in abs_path.parts):
                    continue
                return found, gone, True
            rel = self._display_path(abs_path)
            if rel is None:
                continue
            indexable = is_utf8_encodable(rel)
            if lst is None:
                if indexable:
                    gone.append(rel)
                continue
            if not stat.S_ISREG(lst.st_mode):
                continue
            source = "sessions" if rel.startswith("sessions/") else "memory"
            real = Path(os.path.realpath(abs_path))
            problem = self._listing_problem(rel, source, lst, real, roots)
            if problem is not None:
                found.problems.append(problem)
                if indexable:
                    gone.append(rel)
                continue
            found.files.append(SourceFile(rel, str(abs_path), source, lst.st_size, lst.st_mtime_ns))
        return found, gone, False

    def _display_path(self, abs_path: Path) -> str | None:
        """The stored path of a file discovery would index, or ``None`` if it would not."""
        kind = self._kind(abs_path, self._lexical_roots())
        if kind == "sessions":
            return f"sessions/{abs_path.name}"
        return None if kind is None else _rel(self.root, abs_path)

    def _add_file(
        self,
        path: Path,
        roots: _Roots,
        source: str,
        add: _Add,
        found: Discovery,
        *,
        must_exist: bool,
    ) -> None:
        try:
            lst = path.lstat()
        except FileNotFoundError:
            if must_exist:
                found.problems.append(
                    Problem(_rel(self.root, path), "missing", "extra path does not exist")
                )
            return
        except OSError as exc:
            found.problems.append(
                Problem(_rel(self.root, path), "unreadable", f"cannot stat: {exc.strerror}")
            )
            return
        st = lst
        real = Path(os.path.realpath(path))
        if stat.S_ISLNK(lst.st_mode):
            if not any(_inside(real, r) for r in self._allowed(roots)):
                found.problems.append(self._link_problem(path, real, roots))
                return
            try:
                st = path.stat()
            except OSError:
                found.problems.append(
                    Problem(_rel(self.root, path), "broken-symlink", "symlink target is missing")
                )
                return
        if stat.S_ISREG(st.st_mode):
            add(path, source, st, real=real)

    def _walk(self, top: Path, roots: _Roots, add: _Add, found: Discovery) -> None:
        try:
            top_st = top.lstat()
        except FileNotFoundError:
            return
        except OSError as exc:
            found.problems.append(
                Problem(_rel(self.root, top), "unreadable", f"cannot open folder: {exc.strerror}")
            )
            return
        if stat.S_ISLNK(top_st.st_mode):
            real = Path(os.path.realpath(top))
            if not self._in_tree(real, roots):
                found.problems.append(self._link_problem(top, real, roots))
                return
        allowed = self._allowed(roots)
        stack = [top]
        visited: set[str] = set()
        while stack:
            folder = stack.pop()
            real_folder = os.path.realpath(folder)
            if real_folder in visited:
                continue
            visited.add(real_folder)
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as exc:
                found.problems.append(
                    Problem(
                        _rel(self.root, folder), "unreadable", f"cannot list folder: {exc.strerror}"
                    )
                )
                continue
            subdirs: list[Path] = []
            inside = _as_folder(real_folder)
            for entry in entries:
                path = entry.path
                try:
                    link = entry.is_symlink()
                    real = os.path.realpath(path) if link else inside + entry.name
                    if link and not any(_inside(Path(real), r) for r in allowed):
                        found.problems.append(self._link_problem(path, real, roots))
                        continue
                    if entry.is_dir():
                        if entry.name in IGNORED_DIRS:
                            continue
                        if link and not self._in_tree(real, roots):
                            found.problems.append(self._link_problem(path, real, roots))
                            continue
                        subdirs.append(Path(path))
                    elif entry.is_file() and is_markdown_name(entry.name):
                        add(path, "memory", entry.stat(), real=real)
                except OSError as exc:
                    found.problems.append(
                        Problem(_rel(self.root, path), "unreadable", f"cannot stat: {exc.strerror}")
                    )
            stack.extend(reversed(subdirs))

    def _add_extra(self, extra: Path, roots: _Roots, add: _Add, found: Discovery) -> None:
        if not os.path.exists(extra):
            found.problems.append(
                Problem(_rel(self.root, extra), "missing", "extra path does not exist")
            )
            return
        if os.path.isdir(extra):
            self._walk(extra, roots, add, found)
        elif is_markdown_name(extra.name):
            self._add_file(extra, roots, "memory", add, found, must_exist=True)
        else:
            found.problems.append(
                Problem(_rel(self.root, extra), "not-markdown", "extra path is not a Markdown file")
            )

    def _add_sessions(self, roots: _Roots, add: _Add, found: Discovery) -> None:
        folder = self.sessions_dir
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except FileNotFoundError:
            found.problems.append(
                Problem(_rel(self.root, folder), "missing", "sessions folder does not exist")
            )
            return
        except OSError as exc:
            found.problems.append(
                Problem(
                    _rel(self.root, folder), "unreadable", f"cannot list folder: {exc.strerror}"
                )
            )
            return
        for entry in entries:
            if not _SESSION_NAME.match(entry.name):
                continue
            try:
                link = entry.is_symlink()
                if not entry.is_file():
                    continue
                real = Path(os.path.realpath(entry.path)) if link else roots.sessions / entry.name
                add(
                    Path(entry.path),
                    "sessions",
                    entry.stat(),
                    display=f"sessions/{entry.name}",
                    real=real,
                )
            except OSError as exc:
                found.problems.append(
                    Problem(f"sessions/{entry.name}", "unreadable", f"cannot stat: {exc.strerror}")
                )

    # -- reading -------------------------------------------------------------------------
    def read(self, file: SourceFile) -> FileText:
        """Read a discovered file, refusing binary and oversized files and reporting bad UTF-8.

        The file is opened again by the rules of :meth:`open_readable`, so one swapped for a
        link since discovery is skipped, not read.
        """
        roots = self._real or self._real_roots()
        try:
            opened = self._open_checked(Path(file.abs), file.source, file.path, roots)
        except _Refusal as refusal:
            return FileText(
                None, b"", Problem(file.path, refusal.code, f"{refusal.reason}; skipped")
            )
        with opened:
            return self.read_open(opened)

    def read_open(self, opened: OpenFile) -> FileText:
        """Read a file from :meth:`open_readable` by the rules of discovery: an oversized or
        binary file gives ``text=None`` and its problem, bad UTF-8 is replaced and reported."""
        rel, size = opened.rel, opened.stat.st_size
        if size <= self.max_file_bytes:
            try:
                os.lseek(opened.fd, 0, os.SEEK_SET)
                data = read_fd(opened.fd, self.max_file_bytes + 1)
            except OSError as exc:
                return FileText(
                    None, b"", Problem(rel, "unreadable", f"cannot read: {exc.strerror}")
                )
            size = len(data)
        if size > self.max_file_bytes:
            return FileText(
                None,
                b"",
                Problem(
                    rel,
                    "too-large",
                    f"{size} bytes is over limits.max_file_bytes={self.max_file_bytes}; skipped",
                ),
            )
        # A transcript is JSONL: a NUL byte spoils only its own line, which flattening skips.
        if opened.source != "sessions" and is_binary(data):
            return FileText(None, data, Problem(rel, "binary", "looks binary (NUL bytes); skipped"))
        text, bad = decode_text(data)
        problem = None
        if bad:
            problem = Problem(
                rel, "bad-utf8", f"{bad} invalid UTF-8 byte sequence(s) replaced with U+FFFD"
            )
        return FileText(text, data, problem)

    # -- user-supplied paths ---------------------------------------------------------------
    def open_readable(self, raw: str) -> OpenFile:
        """Check a path given by a user or an agent and open the file it names, once.

        The path must be workspace-relative and name, by its name, a file discovery indexes
        (``MEMORY.md``, ``memory.md``, a Markdown file under ``memory/`` outside ignored
        folders, a Markdown file of an extra path, ``sessions/NAME`` for a transcript when
        sessions are indexed) or ``DREAMS.md``. The file is then opened without following
        links (:func:`open_no_follow`) and refused unless what was opened is such a file too,
        is a regular file and has one hard link (or ``limits.allow_hardlinks`` is on). Each
        refusal raises a :class:`PathError` whose ``code`` names the rule. Close the result.
        """
        rel = self._check_syntax(raw)
        abs_path, source = self._lexical(raw, rel)
        try:
            return self._open_checked(abs_path, source, rel, self._real_roots())
        except _Refusal as refusal:
            raise PathError(f"{raw!r} {refusal.reason}", code=refusal.code, path=raw) from None

    def resolve_readable(self, raw: str) -> tuple[str, Path]:
        """:meth:`open_readable`, closed again: ``(relative path, absolute path)`` of a file
        that could be read now. Raises :class:`PathError`."""
        with self.open_readable(raw) as opened:
            return opened.rel, opened.path

    def normalize(self, raw: str) -> str:
        """The workspace-relative form of a user-supplied path, after the syntax checks of
        :meth:`open_readable` (nothing on disk is looked at). Raises :class:`PathError`.

        Separators are ``/`` only. On POSIX a backslash is an ordinary name character, so a
        file with one in its name can be read by the path search returned; it is refused
        where it could be read as a Windows separator that changes the meaning (in the first
        component, as in ``memory\\x.md`` or ``C:\\x``, or beside an empty, ``.`` or ``..``
        piece). On Windows every backslash is refused.
        """
        return self._check_syntax(raw)

    def is_session_path(self, rel: str) -> bool:
        """Whether ``rel`` has the form of a session transcript's path, ``sessions/NAME``."""
        head, _, name = rel.partition("/")
        return head == "sessions" and "/" not in name and bool(_SESSION_NAME.match(name))

    def _lexical(self, raw: str, rel: str) -> tuple[Path, str]:
        """Where ``rel`` points and which source it belongs to, by its name alone."""
        if "sessions" in self.sources and self.is_session_path(rel):
            return self.sessions_dir / rel.partition("/")[2], "sessions"
        abs_path = Path(os.path.normpath(self.root / rel))
        if rel == "DREAMS.md" and "memory" in self.sources:
            return abs_path, "dreams"
        lexical = self._lexical_roots()
        if self._kind(abs_path, lexical) == "memory":
            return abs_path, "memory"
        in_tree = rel.startswith("memory/") or any(
            abs_path == e or (is_dir and _inside(abs_path, e)) for e, is_dir in lexical.extras
        )
        if in_tree and not is_markdown_name(abs_path.name):
            raise PathError(f"{raw!r} is not a Markdown file (.md)", code="not-markdown", path=raw)
        sessions = ", sessions/*.jsonl" if "sessions" in self.sources else ""
        raise PathError(
            f"{raw!r} is not a memory file: allowed are MEMORY.md, memory.md, DREAMS.md, "
            f"memory/**/*.md outside ignored folders, extra paths{sessions}",
            code="not-memory",
            path=raw,
        )

    def _open_checked(self, abs_path: Path, source: str, rel: str, roots: _Roots) -> OpenFile:
        """Open ``abs_path`` once and check what was opened; raises :class:`_Refusal`."""
        try:
            fd, real = open_no_follow(str(abs_path))
        except OSError as exc:
            # Name the link first: whether a file exists beyond it is none of the caller's business.
            if not any(_inside(Path(os.path.realpath(abs_path)), r) for r in self._allowed(roots)):
                raise _Refusal(_ESCAPE, _ESCAPE_REASON) from None
            if isinstance(exc, FileNotFoundError | NotADirectoryError):
                raise _Refusal("missing", "does not exist") from None
            if exc.errno == errno.ELOOP:
                raise _Refusal("symlink-loop", "goes through too many symlinks") from None
            raise _Refusal("unreadable", f"cannot be read: {exc.strerror}") from None
        try:
            st = os.fstat(fd)
            self._check_opened(source, Path(real), st, roots)
        except BaseException:
            os.close(fd)
            raise
        return OpenFile(rel, "memory" if source == "dreams" else source, real, st, fd, abs_path)

    def _check_opened(self, source: str, real: Path, st: os.stat_result, roots: _Roots) -> None:
        if source == "dreams":
            kind = source if real == roots.root / "DREAMS.md" else None
        else:
            kind = self._kind(real, roots)
        if kind != source:
            if not any(_inside(real, r) for r in self._allowed(roots)):
                raise _Refusal(_ESCAPE, _ESCAPE_REASON)
            raise _Refusal(
                "symlink-not-memory",
                f"leads to {shown_name(_rel(self.real_root, real))!r}, which is not a memory file",
            )
        if not stat.S_ISREG(st.st_mode):
            raise _Refusal("not-file", "is not a regular file")
        if st.st_nlink > 1 and not self.allow_hardlinks:
            raise _Refusal("hardlink", _hardlink_reason(st))

    def _check_syntax(self, raw: str) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise PathError("path is empty", code="empty", path=str(raw))
        if "\x00" in raw:
            raise PathError(
                "path contains a NUL byte", code="nul-byte", path=raw.replace("\x00", "\\0")
            )
        try:
            raw.encode("utf-8")
        except UnicodeEncodeError:
            shown = raw.encode("utf-8", "backslashreplace").decode("utf-8")
            raise PathError(
                f"{shown!r} is not valid Unicode text", code="bad-encoding", path=shown
            ) from None
        if len(raw) > _MAX_PATH_CHARS:
            raise PathError(
                f"path is longer than {_MAX_PATH_CHARS} characters",
                code="too-long",
                path=raw[:64] + "…",
            )
        path = raw.strip()
        if "\\" in path and _ambiguous_backslash(path):
            raise PathError(
                f"{raw!r} uses backslashes; use '/' separators", code="backslash", path=raw
            )
        if _LOOKALIKES.search(path):
            raise PathError(
                f"{raw!r} contains a character that looks like '/', '\\' or '.'; use plain ASCII separators",
                code="lookalike",
                path=raw,
            )
        if re.search(r"%(2e|2f|5c|00)", path, re.IGNORECASE):
            raise PathError(
                f"{raw!r} contains percent-encoded separators or dots", code="encoded", path=raw
            )
        if path.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", path):
            raise PathError(
                f"{raw!r} is absolute; give a path relative to the workspace",
                code="absolute",
                path=raw,
            )
        parts = path.split("/")
        if any(p == ".." for p in parts):
            # Files of an extra path outside the workspace are cited as "../team/x.md";
            # that form, and only it, may climb out. Everything else with ".." is refused.
            target = Path(os.path.normpath(self.root / path))
            outside_extras = [e for e in self._extras if not _inside(e, self.root)]
            cited = _rel(self.root, target)
            if cited != path or not any(target == e or _inside(target, e) for e in outside_extras):
                raise PathError(f"{raw!r} contains '..'", code="traversal", path=raw)
            return cited
        clean = [p for p in parts if p not in ("", ".")]
        if not clean:
            raise PathError("path is empty", code="empty", path=raw)
        if path.endswith("/"):
            raise PathError(
                f"{raw!r} ends with '/', which names a folder; give the path of a file",
                code="not-file",
                path=raw,
            )
        return "/".join(clean)


_ESCAPE = "symlink-escape"
_ESCAPE_REASON = "goes through a symlink that leaves the workspace"


def _ambiguous_backslash(path: str) -> bool:
    """Whether a backslash in ``path`` could be a Windows separator that changes its meaning."""
    if os.name == "nt" or "\\" in path.partition("/")[0]:
        return True
    pieces = (q for p in path.split("/") if "\\" in p for q in p.split("\\"))
    return any(q in ("", ".", "..") for q in pieces)


def _hardlink_reason(st: os.stat_result) -> str:
    return (
        f"has {st.st_nlink} hard links, and another may be a file outside the workspace "
        "(set limits.allow_hardlinks = true to read it)"
    )


def read_fd(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from the current offset of ``fd``."""
    parts: list[bytes] = []
    left = limit
    while left > 0:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def is_binary(data: bytes) -> bool:
    """The binary test of discovery: a NUL byte in the first 8 KiB."""
    return b"\x00" in data[:_BINARY_SNIFF]


def decode_text(data: bytes) -> tuple[str, int]:
    """Decode UTF-8 (a BOM is dropped), replacing bad bytes; returns the text and how many were bad."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        clean = data.decode("utf-8", errors="ignore")
        return text, text.count("\ufffd") - clean.count("\ufffd")
