"""Process bodies for the PostgreSQL concurrency tests (spawned: each opens the index itself)."""

from __future__ import annotations

import time
import traceback
from pathlib import Path


def settings(url: str, namespace: str) -> dict[str, object]:
    return {
        "index.backend": "postgres",
        "index.url": url,
        "index.namespace": namespace,
        "embedding.provider": "none",
    }


def writer(
    ws: str, url: str, namespace: str, agent: str, notes: int, files: int
) -> dict[str, object]:
    """Sync ``files`` notes of this workspace, then write ``notes`` notes as agent ``agent``
    through ``memory_write``, syncing the files again in between; returns when each was written."""
    from memdir import Memory
    from memdir.tools import MemoryTools

    root = Path(ws)
    written: dict[str, float] = {}
    try:
        for n in range(files):
            path = root / "memory" / f"{agent}-file-{n}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {agent} file {n}\n\n{agent}f{n}word is in this file.\n")
        with Memory(root, overrides=settings(url, namespace)) as mem:
            mem.sync()
        with MemoryTools.open(
            root, overrides=settings(url, namespace), scope="main", agent_id=agent
        ) as tools:
            for n in range(notes):
                word = f"{agent}n{n}word"
                result = tools.call("memory_write", {"content": f"Note {n}: {word} happened."})
                if result.is_error:
                    return {"error": str(result.payload)}
                written[word] = time.time()
                if n % 5 == 0:
                    tools.memory.sync()
        return {"written": written}
    except Exception:
        return {"error": traceback.format_exc()}


def watcher(
    url: str, namespace: str, ws: str, words: list[str], deadline_s: float
) -> dict[str, object]:
    """Search (as no agent, through the API) until each of ``words`` is found by a direct
    keyword search of its agent's folder; returns when each was first seen."""
    from memdir import Memory

    seen: dict[str, float] = {}
    try:
        Path(ws).mkdir(parents=True, exist_ok=True)
        (Path(ws) / "MEMORY.md").write_text("# Memory\n")
        with Memory(ws, overrides=settings(url, namespace)) as mem:
            (Path(ws) / "watcher.started").write_text("")
            end = time.monotonic() + deadline_s
            while len(seen) < len(words) and time.monotonic() < end:
                for word in words:
                    if word in seen:
                        continue
                    hits = mem.search(word, min_score=0.0, refresh=False)
                    if any(word.lower() in h.snippet.lower() for h in hits):
                        seen[word] = time.time()
                time.sleep(0.05)
        return {"seen": seen}
    except Exception:
        return {"error": traceback.format_exc()}
