"""Process bodies for the concurrency tests (a small module, so spawned children start fast).

Each function runs in its own spawned process and returns plain data: counts, and a list of
problems found (an empty list means the process saw nothing wrong).
"""

from __future__ import annotations

import os
import random
import re
import time
import traceback
from pathlib import Path

WORDS = ("oddword", "evenword")
LINES = 12


def live_text(name: str, version: int) -> str:
    """Version ``version`` of a live file: every line carries the version and its parity word."""
    word = WORDS[version % 2 == 0]
    return "".join(
        f"{name} stamp ver{version} {word} line {n} " + "filler text " * 6 + "\n"
        for n in range(LINES)
    )


def write_atomically(path: Path, text: str) -> None:
    """Write like an editor does: a temp file (not Markdown, so never indexed) renamed over."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _wait_for(paths: list[Path], deadline: float) -> None:
    while not all(p.exists() for p in paths) and time.monotonic() < deadline:
        time.sleep(0.02)


def writer(ws: str, versions: int, readers: int) -> dict[str, object]:
    """Edit memory/live-a.md and live-b.md ``versions`` times, syncing after each edit."""
    from memdir import Memory

    root = Path(ws)
    problems: list[str] = []
    _wait_for([root / f"reader-{i}.started" for i in range(readers)], time.monotonic() + 60)
    try:
        with Memory(root) as mem:
            for version in range(2, versions + 1):
                # Announce the version before any file has it, so no reader can see it "early".
                write_atomically(root / "version", str(version))
                for name in ("live-a", "live-b"):
                    write_atomically(root / "memory" / f"{name}.md", live_text(name, version))
                mem.sync(force=version % 10 == 0)
    except Exception:
        problems.append(traceback.format_exc())
    finally:
        (root / "writer.done").write_text("done")
    return {"versions": versions, "problems": problems}


def reader(ws: str, index: int) -> dict[str, object]:
    """Search in a loop until the writer is done; check each response against the files' versions."""
    from memdir import Memory

    root = Path(ws)
    rng = random.Random(index)
    problems: list[str] = []
    searches = 0
    deadline = time.monotonic() + 60
    try:
        with Memory(root) as mem:
            (root / f"reader-{index}.started").write_text("")
            while not (root / "writer.done").exists() and time.monotonic() < deadline:
                word = rng.choice(WORDS)
                response = mem.search(word, refresh=rng.random() < 0.5, max_results=100)
                current = int((root / "version").read_text())
                searches += 1
                problems.extend(_check(response, word, current))
                static = mem.search("steadyword", refresh=False, max_results=100)
                if sorted(h.path for h in static) != [f"memory/static-{i}.md" for i in range(5)]:
                    problems.append(f"static files missing: {[h.path for h in static]}")
    except Exception:
        problems.append(traceback.format_exc())
    return {"searches": searches, "problems": problems}


def _check(response: object, word: str, current: int) -> list[str]:
    problems = []
    by_file: dict[str, set[int]] = {}
    for hit in response:  # type: ignore[attr-defined]
        if word not in hit.snippet:
            problems.append(f"{hit.citation} matched {word!r} but its snippet is {hit.snippet!r}")
        found = {int(v) for v in re.findall(r"ver(\d+)", hit.snippet)}
        by_file.setdefault(hit.path, set()).update(found)
        if any(v > current for v in found):
            problems.append(f"{hit.citation} shows version {found} before it was written")
    for path, seen in by_file.items():
        if len(seen) > 1:
            problems.append(f"{path} mixes versions {sorted(seen)} in one response")
    return problems


def syncer(ws: str, name: str, rounds: int) -> dict[str, object]:
    """Edit this process's own file and sync (sometimes a forced rebuild), ``rounds`` times."""
    from memdir import Memory

    root = Path(ws)
    problems: list[str] = []
    rng = random.Random(name)
    try:
        with Memory(root) as mem:
            for version in range(1, rounds + 1):
                write_atomically(root / "memory" / f"{name}.md", live_text(name, version))
                mem.sync(force=rng.random() < 0.3)
    except Exception:
        problems.append(traceback.format_exc())
    return {"rounds": rounds, "problems": problems}
