"""Syncing only the files a watcher reported, instead of walking the whole workspace."""

from __future__ import annotations

import time
from pathlib import Path

from memdir import Memory

KEYWORD_ONLY = {"embedding.provider": "none"}


def _ws(root: Path) -> Path:
    (root / "memory" / "sub").mkdir(parents=True)
    (root / "MEMORY.md").write_text("Long-term: the mascot is a heron.\n")
    for i in range(30):
        (root / "memory" / "sub" / f"n{i}.md").write_text(f"note {i} about topic{i}\n")
    return root


def test_targeted_sync_reindexes_only_the_named_file(tmp_path: Path) -> None:
    ws = _ws(tmp_path / "ws")
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        target = ws / "memory" / "sub" / "n3.md"
        target.write_text("note 3 now mentions kingfisher\n")
        other = ws / "memory" / "sub" / "n4.md"
        other.write_text("note 4 edited but not reported: wagtail\n")
        report = mem.sync(paths=[target])
        assert report.files_indexed == 1 and not report.full_rebuild
        assert [h.path for h in mem.search("kingfisher", refresh=False)] == ["memory/sub/n3.md"]
        assert mem.search("wagtail", refresh=False).results == ()  # not looked at
        assert mem.sync().files_indexed == 1  # a full sync finds the unreported edit


def test_targeted_sync_removes_deleted_files_and_ignores_non_memory_paths(tmp_path: Path) -> None:
    ws = _ws(tmp_path / "ws")
    (ws / "notes.txt").write_text("heron in a text file")
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        gone = ws / "memory" / "sub" / "n7.md"
        gone.unlink()
        report = mem.sync(paths=[gone, ws / "notes.txt", ws / ".memdir" / "index.sqlite"])
        assert report.files_removed == 1
        assert mem.search("topic7", refresh=False).results == ()
        assert {h.path for h in mem.search("heron", refresh=False)} == {"MEMORY.md"}


def test_a_folder_among_the_paths_means_a_full_scan(tmp_path: Path) -> None:
    ws = _ws(tmp_path / "ws")
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        new = ws / "memory" / "new"
        new.mkdir()
        (new / "a.md").write_text("puffin\n")
        (ws / "memory" / "sub" / "n1.md").write_text("osprey\n")
        report = mem.sync(paths=[new])
        assert report.files_indexed == 2  # the folder's file and the unreported edit
        assert mem.search("puffin", refresh=False)[0].path == "memory/new/a.md"


def test_watcher_reports_paths_and_search_syncs_only_those(tmp_path: Path) -> None:
    ws = _ws(tmp_path / "ws")
    overrides = {**KEYWORD_ONLY, "sync.watch_debounce_ms": 60_000}  # never settles by itself
    with Memory(ws, overrides=overrides) as mem:
        mem.sync()
        mem.start_watching()
        deadline = time.monotonic() + 5
        mem.search("heron")  # consumes the initial full-rescan request
        (ws / "memory" / "sub" / "n9.md").write_text("note 9 mentions a cormorant\n")
        hits = []
        while time.monotonic() < deadline and not hits:
            hits = list(mem.search("cormorant"))
            time.sleep(0.05)
        assert [h.path for h in hits] == ["memory/sub/n9.md"]
        last = mem.status()["last_sync"]
        assert last["files_indexed"] == 1 and last["files_unchanged"] == 0
