"""A damaged index is rebuilt from the Markdown, even when the damage is past the header."""

from __future__ import annotations

from pathlib import Path

from memdir import Memory
from memdir.index.store import KEEP_CORRUPT_COPIES

KEYWORD_ONLY = {"embedding.provider": "none"}


def _workspace(root: Path, n: int = 120) -> Path:
    (root / "memory").mkdir(parents=True)
    for i in range(n):
        (root / "memory" / f"note{i:03d}.md").write_text(
            f"# Note {i}\n\n" + f"topic{i} " * 200 + "\n"
        )
    (root / "MEMORY.md").write_text("The launch codename is BLUEHERON.\n")
    return root


def _damage_pages(index: Path) -> None:
    data = bytearray(index.read_bytes())
    assert len(data) > 64 * 4096
    for page in range(8, len(data) // 4096, 3):  # leave the header page alone
        start = page * 4096 + 100
        data[start : start + 512] = b"\xa5" * 512
    index.write_bytes(bytes(data))


def test_pages_damaged_past_the_header_are_rebuilt_on_search(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        index = mem.index.path
    for side in (Path(str(index) + "-wal"), Path(str(index) + "-shm")):
        side.unlink(missing_ok=True)
    _damage_pages(index)
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        hits = mem.search("BLUEHERON")
        assert [h.path for h in hits] == ["MEMORY.md"]
        assert mem.search("topic77")[0].path == "memory/note077.md"
        status = mem.status()
        assert status["recovered_from"] and ".corrupt-" in status["recovered_from"]
        assert status["files"] == 121
    assert list(index.parent.glob(index.name + ".corrupt-*"))


def test_only_the_newest_damaged_copies_are_kept(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws", n=3)
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        index = mem.index.path
    old = index.with_name(index.name + ".corrupt-20000101T000000")  # from a run long ago
    old.write_bytes(b"old damage")
    Path(str(old) + "-wal").write_bytes(b"old wal")
    for i in range(5):  # damaged five times in a row (often within one second)
        for side in (Path(str(index) + "-wal"), Path(str(index) + "-shm")):
            side.unlink(missing_ok=True)
        index.write_bytes(f"damage {i} ".encode() * 2000)
        with Memory(ws, overrides=KEYWORD_ONLY) as mem:
            assert [h.path for h in mem.search("BLUEHERON")] == ["MEMORY.md"]
            assert mem.status()["recovered_from"]
    copies = sorted(index.parent.glob(index.name + ".corrupt-*"))
    assert len(copies) == KEEP_CORRUPT_COPIES == 3
    kept = {p.read_bytes()[: len("damage 0")].decode() for p in copies}
    assert kept == {"damage 2", "damage 3", "damage 4"}
    assert not Path(str(old) + "-wal").exists()
