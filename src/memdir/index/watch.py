"""Watch the memory files and re-index shortly after they change.

Uses ``watchdog`` (in a measured burst it reported every file created right after ``mkdir -p``,
where ``watchfiles`` missed some). Events only mark the index dirty and (re)start a debounce
timer; when no event has arrived for ``debounce_s`` the ``on_settled`` callback runs a sync. A
periodic rescan catches anything the operating system did not report (network filesystems,
overflowed event queues). Editors that save by renaming a temp file over the original produce
move events, which are handled like any other change. Transcripts a sync left as they were
indexed (grown by less than the ``sessions.delta_*`` thresholds) are reported again once
``sessions.debounce_ms`` has passed (:meth:`Watcher.recheck`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from memdir.workspace import IGNORED_DIRS, Workspace, is_markdown_name

__all__ = ["Watcher"]

_MAX_PENDING = 500  # more changed paths than this at once: rescan everything instead

log = logging.getLogger(__name__)


def _relevant(path: str, *, sessions: bool) -> bool:
    parts = Path(path).parts
    if any(p in IGNORED_DIRS for p in parts):
        return False
    name = parts[-1] if parts else ""
    if is_markdown_name(name):
        return True
    if sessions and ".jsonl" in name:
        return True
    return "." not in name  # a folder (or an extension-less path): may hold Markdown


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [str(event.src_path)]
        dest = getattr(event, "dest_path", "")
        if dest:
            paths.append(str(dest))
        if event.is_directory:
            if event.event_type == "modified":
                return  # a file inside changed: its own event says which
            if any(_relevant(p, sessions=self.watcher.sessions) for p in paths):
                self.watcher.poke(None)  # a folder appeared, vanished or moved: rescan
            return
        relevant = [p for p in paths if _relevant(p, sessions=self.watcher.sessions)]
        if relevant:
            self.watcher.poke(relevant)


class Watcher:
    """Background watching of one workspace; call :meth:`start` and :meth:`stop`."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        on_change: Callable[[], None],
        on_settled: Callable[[], None],
        debounce_s: float = 0.5,
        rescan_s: float = 300.0,
    ) -> None:
        self.workspace = workspace
        self.on_change = on_change
        self.on_settled = on_settled
        self.debounce_s = debounce_s
        self.rescan_s = rescan_s
        self.sessions = "sessions" in workspace.sources
        self._observer = Observer()
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pending: set[str] | None = set()
        self._recheck: threading.Timer | None = None
        self._recheck_paths: set[str] = set()
        self._rescanner: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        return self._observer.is_alive() and not self._stop.is_set()

    def _targets(self) -> list[tuple[Path, bool]]:
        """Folders to watch: the workspace root (not recursive: root files and memory/ appear
        there) plus memory/ and each extra folder recursively."""
        targets: list[tuple[Path, bool]] = [(self.workspace.root, False)]
        memory = self.workspace.root / "memory"
        if memory.is_dir():
            targets.append((memory, True))
        for extra in self.workspace.extra_paths:
            if extra.is_dir():
                targets.append((extra, True))
            elif extra.parent.is_dir():
                targets.append((extra.parent, False))
        if self.sessions and self.workspace.sessions_dir.is_dir():
            targets.append((self.workspace.sessions_dir, False))
        return targets

    def start(self) -> None:
        handler = _Handler(self)
        for folder, recursive in self._targets():
            self._observer.schedule(handler, str(folder), recursive=recursive)
        self._observer.daemon = True
        self._observer.start()
        if self.rescan_s > 0:
            self._rescanner = threading.Thread(
                target=self._rescan_loop, name="memdir-rescan", daemon=True
            )
            self._rescanner.start()

    def poke(self, paths: Iterable[str] | None = None) -> None:
        """An event arrived: mark dirty now, sync once things have been quiet for a moment.

        ``paths`` are the files the event named; ``None`` asks for a full rescan.
        """
        with self._lock:
            if paths is None:
                self._pending = None
            elif self._pending is not None:
                self._pending.update(paths)
                if len(self._pending) > _MAX_PENDING:
                    self._pending = None
        self.on_change()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            if self._stop.is_set():
                return
            self._timer = threading.Timer(self.debounce_s, self._settled)
            self._timer.daemon = True
            self._timer.start()

    def recheck(self, paths: Iterable[str], delay_s: float) -> None:
        """Report ``paths`` as changed again in ``delay_s`` (transcripts a sync left as they
        were indexed because they grew too little, too recently). A recheck already due is not
        put off: the paths join it, so a transcript written to without pause cannot starve the
        others."""
        with self._lock:
            if self._stop.is_set():
                return
            self._recheck_paths.update(paths)
            if self._recheck is not None and self._recheck.is_alive():
                return
            self._recheck = threading.Timer(delay_s, self._fire_recheck)
            self._recheck.daemon = True
            self._recheck.start()

    def _fire_recheck(self) -> None:
        with self._lock:
            paths, self._recheck_paths = sorted(self._recheck_paths), set()
            self._recheck = None
        if paths and not self._stop.is_set():
            self.poke(paths)

    def take_pending(self) -> list[str] | None:
        """The changed paths seen since the last call (``None``: rescan everything)."""
        with self._lock:
            pending, self._pending = self._pending, set()
        return None if pending is None else sorted(pending)

    def _settled(self) -> None:
        if self._stop.is_set():
            return
        memory = self.workspace.root / "memory"
        if memory.is_dir():
            current = [e for e in self._observer.emitters if str(e.watch.path) == str(memory)]
            if not any(e.is_alive() for e in current):
                # memory/ was created (or deleted and re-created) after we started: a dead
                # watch must be dropped first, or schedule() would reuse it.
                for emitter in current:
                    with suppress(KeyError):
                        self._observer.unschedule(emitter.watch)
                self._observer.schedule(_Handler(self), str(memory), recursive=True)
        try:
            self.on_settled()
        except Exception:  # a failed background sync must not kill the watcher thread
            log.exception("background sync after a file change failed")

    def _rescan_loop(self) -> None:
        while not self._stop.wait(self.rescan_s):
            self.poke(None)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            if self._recheck is not None:
                self._recheck.cancel()
        self._observer.stop()
        if self._observer.is_alive():
            self._observer.join(timeout=5)
