"""Guarantee 4, crash safety: a process appending and compacting is SIGKILLed at random
points, again and again on the same store; after every kill the store passes SQLite's
integrity check and ours, assembles a context within budget, and gives back every message it
had committed, in order and byte for byte, and the next process carries on."""

from __future__ import annotations

import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from context.helpers import recovered
from memdir.context.compaction import ContextSettings
from memdir.context.store import LcmStore
from memdir.context.working import WorkingMemory

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")

TRIALS = 30
SILENCE = 60.0
"""Seconds a child may go without reporting a batch before the test calls it hung."""

# Appends batches of messages whose text follows from their seq, compacting after each batch
# through a small window, until it is killed.
CHILD = """
import sys
from memdir.context.compaction import ContextSettings
from memdir.context.store import LcmStore, NewMessage
from memdir.context.working import WorkingMemory

def text(seq):
    words = ["billing", "数据库迁移", "relay v1.13.2", "周五部署", "OPS-2231", "Lisbon"]
    return f"[{seq}] " + " ".join(words[(seq * k) % len(words)] for k in range(1, 2 + seq % 9))

store = LcmStore.open(sys.argv[1])
settings = ContextSettings(window_tokens=1024, fresh_messages=6, leaf_tokens=300)
working = WorkingMemory(store, "crash", settings=settings)
print("ready", flush=True)
while True:
    seq = len(store.messages("crash"))
    working.extend([NewMessage("user" if (seq + i) % 2 else "assistant", text(seq + i + 1))
                    for i in range(7)])
    working.compact()
    print(seq + 7, flush=True)
"""


def _text(seq: int) -> str:
    words = ["billing", "数据库迁移", "relay v1.13.2", "周五部署", "OPS-2231", "Lisbon"]
    return f"[{seq}] " + " ".join(words[(seq * k) % len(words)] for k in range(1, 2 + seq % 9))


def _line(proc: subprocess.Popen[bytes]) -> str:
    """The child's next line; the test fails, naming what the child said, if none comes
    within :data:`SILENCE` seconds (a hung child, not a slow machine)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], SILENCE)
    line = proc.stdout.readline().decode() if ready else ""
    if not line:
        proc.kill()
        pytest.fail(f"the child said nothing for {SILENCE} s: {proc.communicate()[1]!r}")
    return line.strip()


def test_killed_compactions_leave_a_consistent_store(tmp_path: Path) -> None:
    """Each child is killed a random number of batches (0–6) into its work, plus a random
    part of a batch: counting the batches it reports, not the time, so that the kills land
    at as many points on a slow or busy machine as on a fast one."""
    path = tmp_path / "lcm.sqlite"
    rng = random.Random(2026)
    counts = []
    for _ in range(TRIALS):
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        if (line := _line(proc)) != "ready":
            proc.kill()
            pytest.fail(f"child did not start: {line!r} {proc.communicate()[1]!r}")
        for _ in range(rng.randint(0, 6)):
            _line(proc)
        time.sleep(rng.uniform(0.0, 0.03))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        assert proc.stderr is not None
        proc.stderr.close()

        with sqlite3.connect(path) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with LcmStore.open(path) as store:
            assert store.check("crash") == []
            got = recovered(store, "crash")
            assert [m.content for m in got] == [_text(s) for s in range(1, len(got) + 1)]
            assert [m.seq for m in got] == list(range(1, len(got) + 1))
            working = WorkingMemory(store, "crash", settings=ContextSettings(window_tokens=1024))
            assert working.assemble().tokens <= 1024
            counts.append((len(got), sum(store.depth_counts("crash").values())))
    # the kills landed at many different points, and the work went on across them
    assert counts[-1][0] > counts[0][0] and counts[-1][1] > 0
    assert len({c for c, _ in counts}) > TRIALS // 2
