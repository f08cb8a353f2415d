"""Two real processes appending to one transcript at once: every line stays whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import memdir
from memdir.sessions import read_transcript

WRITER = """
import sys, time
from pathlib import Path
from memdir import Memory, Session

ws, tag, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
    session = Session(mem, session_id="shared", fsync=False)
    Path(f"{go}.{tag}").touch()  # ready
    while not go.exists():
        time.sleep(0.001)
    for i in range(count):
        # 24 KB a message: far beyond what one pipe or page write is guaranteed to keep whole
        session.add({"role": "user", "content": f"{tag}-{i:04d} " + tag * 24_000})
"""


def test_two_processes_appending_never_interleave_inside_a_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path(memdir.__file__).resolve().parents[1])}
    count = 300
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(ws), tag, str(count), str(go)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    deadline = time.monotonic() + 60
    while not all(Path(f"{go}.{tag}").exists() for tag in ("a", "b")):
        # a writer that died before it was ready says why (twice: both opened the new index at
        # once and the second was refused its switch to WAL; memdir.index.schema.wal waits now)
        died = [p.communicate()[1] for p in procs if p.poll() is not None]
        assert not died, died
        assert time.monotonic() < deadline, "the writers were not ready in 60 s"
        time.sleep(0.01)
    go.touch()  # both start appending at the same moment
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err

    path = ws / "sessions" / "shared.jsonl"
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""  # the file ends with a complete line
    records = [json.loads(line) for line in lines[:-1]]  # every line is whole JSON
    assert [r["type"] for r in records].count("session") == 1 and records[0]["type"] == "session"
    texts = [r["message"]["content"][0]["text"] for r in records[1:]]
    assert len(texts) == 2 * count
    for tag in ("a", "b"):
        mine = [t for t in texts if t.startswith(f"{tag}-")]
        assert [t.split(" ")[0] for t in mine] == [f"{tag}-{i:04d}" for i in range(count)]
        assert all(t.endswith(tag * 24_000) for t in mine)
    read = read_transcript(path)
    assert read.problems == [] and len(read.messages) == 2 * count
