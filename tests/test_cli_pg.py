"""``memdir index --backend postgres``, ``memdir status`` and ``memdir migrate --to postgres``
against the session's real PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from memdir import Memory
from memdir.cli import cli

NOTES = {
    "MEMORY.md": "# Memory\n\nWe chose PostgreSQL for billing.\n",
    "memory/2026-01-12.md": "# 2026-01-12\n\n- Met Bob about the quokka migration.\n",
}


def _ws(root: Path) -> Path:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_index_into_postgres_then_status_shows_the_server(tmp_path: Path, pg_url: str) -> None:
    ws = str(_ws(tmp_path / "ws"))
    sets = ["--set", "embedding.provider=none", "--set", f"index.url={pg_url}"]
    code, out = _run("index", "--backend", "postgres", "-w", ws, *sets, "--json")
    assert code == 0, out
    assert json.loads(out)["files_indexed"] == 2
    code, out = _run("status", "-w", ws, *sets, "--set", "index.backend=postgres", "--json")
    assert code == 0, out
    info = json.loads(out)["index"]
    assert info["backend"] == "postgres" and info["server_version"].startswith("18")
    assert "vector 0.8.6" in info["extensions"]
    assert info["rows"]["files"] == 2 and info["rows"]["chunks"] == 2
    code, out = _run("status", "-w", ws, *sets, "--set", "index.backend=postgres")
    assert code == 0 and "pgvector" in out and "0.8.6" in out


class _Words:
    provider = "test"
    model = "words-v1"
    max_input_bytes = 10_000

    def identity(self) -> dict[str, str]:
        return {"provider": self.provider, "model": self.model}

    def _vec(self, text: str) -> list[float]:
        low = text.lower()
        v = [float(w in low) for w in ("quokka", "billing", "bob")] + [0.1]
        n = sum(x * x for x in v) ** 0.5
        return [x / n for x in v]

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.array([self._vec(t) for t in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.array(self._vec(text), dtype=np.float32)


def test_migrate_copies_the_index_without_embedding_again(tmp_path: Path, pg_url: str) -> None:
    ws = _ws(tmp_path / "ws")
    with Memory(ws, embedder=_Words()) as mem:  # type: ignore[arg-type]
        mem.sync()
        before = [(r.path, round(r.score, 5)) for r in mem.search("quokka", min_score=0.0)]
    code, out = _run(
        "migrate", "--to", "postgres", "-w", str(ws), "--set", f"index.url={pg_url}", "--json"
    )
    assert code == 0, out
    report = json.loads(out)
    assert (report["files"], report["chunks"], report["vectors"]) == (2, 2, 2)
    pg = {"index.backend": "postgres", "index.url": pg_url}

    class Refuses(_Words):
        def embed_documents(self, texts: list[str]) -> np.ndarray:
            raise AssertionError("migrate must not leave anything to embed")

    with Memory(ws, overrides=pg, embedder=Refuses()) as mem:  # type: ignore[arg-type]
        assert mem.status()["embedding"]["missing"] == 0
        after = [(r.path, round(r.score, 5)) for r in mem.search("quokka", min_score=0.0)]
        assert mem.sync().files_indexed == 0  # the copied file rows are this workspace's
    assert after == before


def test_migrate_needs_a_sqlite_index(tmp_path: Path, pg_url: str) -> None:
    ws = _ws(tmp_path / "ws")
    code, out = _run("migrate", "-w", str(ws), "--set", f"index.url={pg_url}")
    assert code == 2 and "no SQLite index" in out
