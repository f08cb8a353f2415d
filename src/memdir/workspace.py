"""The workspace: which files are memory, and the one place paths are resolved and checked.

Memory is ``MEMORY.md`` / ``memory.md`` at the workspace root, every Markdown file under
``memory/``, any configured extra paths, and (when the ``sessions`` source is on) JSONL session
transcripts. Nothing outside the workspace, an extra path or the sessions folder is ever read:
a symlink whose target leaves those roots is refused with a warning, binary and oversized files
are skipped with a warning naming the file, and invalid UTF-8 is decoded with replacement
characters and reported.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memdir.config import STATE_DIRNAME, Config
from memdir.errors import PathError

__all__ = [
    "IGNORED_DIRS",
    "Discovery",
    "FileText",
    "Problem",
    "SourceFile",
    "Workspace",
    "is_markdown_name",
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
        self.sources: tuple[str, ...] = tuple(config["sources"])
        self.sessions_dir = config.path("sessions.dir")
        self.extra_paths: tuple[Path, ...] = tuple(dict.fromkeys(config.path_list("extra_paths")))

    # -- roots ---------------------------------------------------------------------------
    def allowed_roots(self) -> list[Path]:
        """Real paths under which reading is allowed (workspace, extra paths, sessions dir)."""
        roots = [self.real_root]
        roots += [Path(os.path.realpath(p)) for p in self.extra_paths]
        if "sessions" in self.sources:
            roots.append(Path(os.path.realpath(self.sessions_dir)))
        return roots

    def _escapes(self, real: Path, roots: Iterable[Path]) -> bool:
        return not any(_inside(real, r) for r in roots)

    def _escape_problem(self, path: str | Path, real: Path) -> Problem:
        return Problem(
            _rel(self.root, Path(path)),
            "symlink-escape",
            f"symlink to {real} leaves the workspace; skipped",
        )

    # -- discovery -----------------------------------------------------------------------
    def discover(self) -> Discovery:
        """List every file the index should hold, with problems found on the way."""
        found = Discovery()
        seen: set[tuple[int, int]] = set()
        prefix = str(self.root) + os.sep

        def add(
            abs_path: Path, source: str, st: os.stat_result, display: str | None = None
        ) -> None:
            # The same file reached twice (a symlink inside the workspace, overlapping extra
            # paths) is indexed once: identity is the inode the stat followed to.
            identity = (st.st_dev, st.st_ino)
            if identity in seen:
                return
            seen.add(identity)
            text = str(abs_path)
            if display:
                rel = display
            elif text.startswith(prefix):
                rel = text[len(prefix) :].replace(os.sep, "/")
            else:
                rel = _rel(self.root, Path(text))
            found.files.append(SourceFile(rel, text, source, st.st_size, st.st_mtime_ns))

        if "memory" in self.sources:
            for name in ROOT_FILES:
                self._add_file(
                    self.root / name, [self.real_root], "memory", add, found, must_exist=False
                )
            mem_dir = self.root / "memory"
            self._walk(mem_dir, [self.real_root], add, found)
            for extra in self.extra_paths:
                self._add_extra(extra, add, found)
        if "sessions" in self.sources:
            self._add_sessions(add, found)
        return found

    def discover_paths(
        self, paths: Iterable[str | os.PathLike[str]]
    ) -> tuple[Discovery, list[str], bool]:
        """Apply the discovery rules to a few changed paths only (what a watcher reports).

        Returns the files to (re)index, the relative paths that no longer exist (their rows
        should go), and whether a full scan is needed instead (a folder changed, or a path
        could not be classified cheaply).
        """
        found = Discovery()
        gone: list[str] = []
        roots = self.allowed_roots()
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
            if lst is None:
                gone.append(rel)
                continue
            if not stat.S_ISREG(lst.st_mode):
                continue
            real = Path(os.path.realpath(abs_path))
            if self._escapes(real, roots):
                return found, gone, True
            source = "sessions" if rel.startswith("sessions/") else "memory"
            found.files.append(SourceFile(rel, str(abs_path), source, lst.st_size, lst.st_mtime_ns))
        return found, gone, False

    def _display_path(self, abs_path: Path) -> str | None:
        """The stored path of a file discovery would index, or ``None`` if it would not."""
        name = abs_path.name
        parts_ok = not any(p in IGNORED_DIRS for p in abs_path.parts)
        if "memory" in self.sources and parts_ok:
            if abs_path.parent == self.root and name in ROOT_FILES:
                return name
            memory = self.root / "memory"
            if _inside(abs_path, memory) and abs_path != memory and is_markdown_name(name):
                return _rel(self.root, abs_path)
            for extra in self.extra_paths:
                if (abs_path == extra or _inside(abs_path, extra)) and is_markdown_name(name):
                    return _rel(self.root, abs_path)
        if (
            "sessions" in self.sources
            and abs_path.parent == self.sessions_dir
            and _SESSION_NAME.match(name)
        ):
            return f"sessions/{name}"
        return None

    def _add_file(
        self,
        path: Path,
        roots: list[Path],
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
        if stat.S_ISLNK(lst.st_mode):
            real = Path(os.path.realpath(path))
            if self._escapes(real, roots):
                found.problems.append(self._escape_problem(path, real))
                return
            try:
                st = path.stat()
            except OSError:
                found.problems.append(
                    Problem(_rel(self.root, path), "broken-symlink", "symlink target is missing")
                )
                return
        if stat.S_ISREG(st.st_mode):
            add(path, source, st)

    def _walk(self, top: Path, roots: list[Path], add: _Add, found: Discovery) -> None:
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
            if self._escapes(real, roots):
                found.problems.append(self._escape_problem(top, real))
                return
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
            for entry in entries:
                path = entry.path
                try:
                    if entry.is_symlink():
                        real = Path(os.path.realpath(path))
                        if self._escapes(real, roots):
                            found.problems.append(self._escape_problem(path, real))
                            continue
                    if entry.is_dir():
                        if entry.name not in IGNORED_DIRS:
                            subdirs.append(Path(path))
                    elif entry.is_file() and is_markdown_name(entry.name):
                        add(path, "memory", entry.stat())
                except OSError as exc:
                    found.problems.append(
                        Problem(_rel(self.root, path), "unreadable", f"cannot stat: {exc.strerror}")
                    )
            stack.extend(reversed(subdirs))

    def _add_extra(self, extra: Path, add: _Add, found: Discovery) -> None:
        root = Path(os.path.realpath(extra))
        if not extra.exists():
            found.problems.append(
                Problem(_rel(self.root, extra), "missing", "extra path does not exist")
            )
            return
        if root.is_dir():
            self._walk(extra, [root, self.real_root], add, found)
        elif is_markdown_name(extra.name):
            self._add_file(extra, [root], "memory", add, found, must_exist=True)
        else:
            found.problems.append(
                Problem(_rel(self.root, extra), "not-markdown", "extra path is not a Markdown file")
            )

    def _add_sessions(self, add: _Add, found: Discovery) -> None:
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
            if entry.is_symlink() or not entry.is_file() or not _SESSION_NAME.match(entry.name):
                continue
            add(Path(entry.path), "sessions", entry.stat(), display=f"sessions/{entry.name}")

    # -- reading -------------------------------------------------------------------------
    def read(self, file: SourceFile) -> FileText:
        """Read a discovered file, refusing binary and oversized files and reporting bad UTF-8."""
        if file.size > self.max_file_bytes:
            return FileText(
                None,
                b"",
                Problem(
                    file.path,
                    "too-large",
                    f"{file.size} bytes is over limits.max_file_bytes={self.max_file_bytes}; skipped",
                ),
            )
        try:
            with open(file.abs, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            return FileText(
                None, b"", Problem(file.path, "unreadable", f"cannot read: {exc.strerror}")
            )
        if len(data) > self.max_file_bytes:
            return FileText(
                None,
                b"",
                Problem(
                    file.path,
                    "too-large",
                    f"{len(data)} bytes is over limits.max_file_bytes={self.max_file_bytes}; skipped",
                ),
            )
        # A transcript is JSONL: a NUL byte spoils only its own line, which flattening skips.
        if file.source != "sessions" and b"\x00" in data[:_BINARY_SNIFF]:
            return FileText(
                None, data, Problem(file.path, "binary", "looks binary (NUL bytes); skipped")
            )
        text, bad = decode_text(data)
        problem = None
        if bad:
            problem = Problem(
                file.path, "bad-utf8", f"{bad} invalid UTF-8 byte sequence(s) replaced with U+FFFD"
            )
        return FileText(text, data, problem)

    # -- user-supplied paths ---------------------------------------------------------------
    def resolve_readable(self, raw: str) -> tuple[str, Path]:
        """Check a path given by a user or an agent and return ``(relative path, absolute path)``.

        The path must be workspace-relative, name a Markdown memory file (``MEMORY.md``,
        ``memory.md``, ``DREAMS.md``, anything under ``memory/``) or a file under an extra path,
        and no component may be a symlink that leaves the allowed roots. Each refusal raises a
        :class:`PathError` whose ``code`` names the rule.
        """
        rel = self._check_syntax(raw)
        abs_path = Path(os.path.normpath(self.root / rel))
        allowed_by = self._allowed_root_for(rel, abs_path)
        if allowed_by is None:
            raise PathError(
                f"{raw!r} is not a memory file: allowed are MEMORY.md, memory.md, DREAMS.md, memory/**/*.md and extra paths",
                code="not-memory",
                path=raw,
            )
        if not is_markdown_name(abs_path.name):
            raise PathError(f"{raw!r} is not a Markdown file (.md)", code="not-markdown", path=raw)
        self._check_symlinks(raw, abs_path)
        try:
            st = abs_path.stat()
        except FileNotFoundError:
            raise PathError(f"{raw!r} does not exist", code="missing", path=raw) from None
        except OSError as exc:
            raise PathError(
                f"{raw!r} cannot be read: {exc.strerror}", code="unreadable", path=raw
            ) from None
        if not stat.S_ISREG(st.st_mode):
            raise PathError(f"{raw!r} is not a regular file", code="not-file", path=raw)
        return rel, abs_path

    def normalize(self, raw: str) -> str:
        """The workspace-relative form of a user-supplied path, after the syntax checks of
        :meth:`resolve_readable` (nothing on disk is looked at). Raises :class:`PathError`."""
        return self._check_syntax(raw)

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
        if "\\" in path:
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
            outside_extras = [e for e in self.extra_paths if not _inside(e, self.root)]
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

    def _allowed_root_for(self, rel: str, abs_path: Path) -> Path | None:
        if rel in READABLE_ROOT_FILES or rel.startswith("memory/"):
            return self.root
        for extra in self.extra_paths:
            if extra == abs_path or (extra.is_dir() and _inside(abs_path, extra)):
                return extra
        return None

    def _check_symlinks(self, raw: str, abs_path: Path) -> None:
        roots = self.allowed_roots()
        base = self.root
        if not _inside(abs_path, self.root):  # a file of an extra path outside the workspace
            base = next(
                (e for e in self.extra_paths if e == abs_path or _inside(abs_path, e)), abs_path
            )
            if base == abs_path:
                base = abs_path.parent
        current = base
        for part in abs_path.relative_to(base).parts:
            current = current / part
            try:
                is_link = current.is_symlink()
            except OSError:
                return
            if is_link:
                real = Path(os.path.realpath(current))
                if self._escapes(real, roots):
                    raise PathError(
                        f"{raw!r} goes through a symlink that leaves the workspace",
                        code="symlink-escape",
                        path=raw,
                    )
        real = Path(os.path.realpath(abs_path))
        if self._escapes(real, roots):
            raise PathError(f"{raw!r} resolves outside the workspace", code="outside", path=raw)


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
