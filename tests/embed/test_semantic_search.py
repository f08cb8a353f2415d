"""Semantic and hybrid search through the public API, against a real embedding endpoint
(an OpenAI-compatible HTTP server started by the test on loopback) and the packaged model."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir import Memory

from .fakes import FakeServer, Reply, Seen

DIMS = 64


def bag_of_words(text: str) -> list[float]:
    """A deterministic embedding: words hashed into 64 buckets, so cosine ~ word overlap."""
    vec = [0.0] * DIMS
    for word in re.findall(r"\w+", text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIMS] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def embeddings_reply(seen: Seen) -> Reply:
    assert isinstance(seen.body, dict)
    data = [{"index": i, "embedding": bag_of_words(t)} for i, t in enumerate(seen.body["input"])]
    return Reply({"data": data, "model": seen.body["model"]})


@pytest.fixture
def server() -> Iterator[FakeServer]:
    srv = FakeServer()
    srv.handler = embeddings_reply
    yield srv
    srv.close()


def sent_texts(server: FakeServer) -> list[str]:
    return [t for r in server.requests if isinstance(r.body, dict) for t in r.body["input"]]


def open_memory(ws: Path, server: FakeServer, **extra: object) -> Memory:
    return Memory(
        ws,
        overrides={
            "embedding.provider": "openai-compatible",
            "embedding.base_url": server.url,
            "embedding.model": "bow-64",
            **extra,
        },
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nThe team prefers PostgreSQL for billing.\n")
    (tmp_path / "memory" / "2026-11-27.md").write_text(
        "Standup: invoice renderer leaks memory under load.\n"
    )
    (tmp_path / "memory" / "2026-11-28.md").write_text("Deploys are never on Friday.\n")
    return tmp_path


def test_sync_embeds_every_chunk_and_hybrid_search_uses_vectors(
    ws: Path, server: FakeServer
) -> None:
    with open_memory(ws, server) as mem:
        report = mem.sync()
        assert report.vectors is not None and report.vectors["error"] is None
        status = mem.status()["embedding"]
        assert status["vectors"] == mem.status()["chunks"] == 3
        assert status["dims"] == DIMS and status["missing"] == 0
        response = mem.search("invoice renderer memory leak", min_score=0.0)
        assert response.mode == "hybrid" and response.warnings == ()
        assert response[0].path == "memory/2026-11-27.md"
        # The chunk was embedded with its heading path (the file's date: it has no heading).
        embedded = bag_of_words("2026-11-27\nStandup: invoice renderer leaks memory under load.")
        query = bag_of_words("invoice renderer memory leak")
        cosine = sum(a * b for a, b in zip(query, embedded, strict=True))
        assert response[0].vector_score == pytest.approx(cosine, abs=1e-5)
        assert "2026-11-27\nStandup: invoice renderer leaks memory under load." in sent_texts(
            server
        )


def test_failing_provider_degrades_to_keyword_and_fills_in_later(
    ws: Path, server: FakeServer
) -> None:
    server.handler = lambda seen: Reply({"error": {"message": "upstream down"}}, status=400)
    with open_memory(ws, server) as mem:
        report = mem.sync()
        assert report.vectors is not None and "upstream down" in str(report.vectors["error"])
        response = mem.search("Friday deploys")
        assert response.mode == "keyword"
        assert any("vector search" in w for w in response.warnings)
        assert response[0].path == "memory/2026-11-28.md"  # keyword search still answers
        assert mem.status()["embedding"]["degraded"]
        server.handler = embeddings_reply  # the provider recovers
        report = mem.sync()
        assert report.vectors is not None and report.vectors["error"] is None
        assert mem.status()["embedding"]["missing"] == 0
        response = mem.search("Friday deploys")
        assert response.mode == "hybrid" and response.warnings == ()


def test_retryable_errors_are_retried_then_succeed(ws: Path, server: FakeServer) -> None:
    server.script(Reply({"error": "busy"}, status=503))
    with open_memory(ws, server) as mem:
        report = mem.sync()
        assert report.vectors is not None and report.vectors["error"] is None
        assert mem.status()["embedding"]["vectors"] == 3


def test_editing_one_line_re_embeds_only_changed_chunks(tmp_path: Path, server: FakeServer) -> None:
    (tmp_path / "memory").mkdir()
    lines = [
        f"Line {i}: the {i}th fact about topic number {i} is written down here."
        for i in range(1, 2001)
    ]
    note = tmp_path / "memory" / "long.md"
    note.write_text("\n".join(lines) + "\n")
    with open_memory(tmp_path, server) as mem:
        mem.sync()
        chunks = mem.status()["chunks"]
        assert chunks >= 100
        before = len(sent_texts(server))
        assert before == chunks + len(lines)  # each chunk, and each of its lines
        lines[0] = "Line 1: edited near the top."
        note.write_text("\n".join(lines) + "\n")
        report = mem.sync()
        assert report.files_indexed == 1
        # the edited chunk and its edited line; its other lines come from the cache
        assert len(sent_texts(server)) - before <= 2
        assert mem.status()["embedding"]["missing"] == 0


def test_a_full_rebuild_reuses_the_cache(ws: Path, server: FakeServer) -> None:
    with open_memory(ws, server) as mem:
        mem.sync()
        sent = len(sent_texts(server))
        report = mem.sync(force=True)
        assert report.full_rebuild
        assert report.vectors is not None and report.vectors["from_cache"] == 3
        assert len(sent_texts(server)) == sent


def test_changing_the_model_re_embeds_while_keyword_search_answers(
    ws: Path, server: FakeServer
) -> None:
    with open_memory(ws, server) as mem:
        mem.sync()
    with open_memory(ws, server, **{"embedding.model": "bow-64-v2"}) as mem:
        assert mem.search("PostgreSQL", mode="keyword", refresh=False)[0].path == "MEMORY.md"
        report = mem.sync()
        assert report.vectors is not None and report.vectors["reset_reason"]
        assert report.vectors["embedded"] == 3
        assert {r.body["model"] for r in server.requests if isinstance(r.body, dict)} == {
            "bow-64",
            "bow-64-v2",
        }


def test_cache_is_capped_least_recently_used_first(ws: Path, server: FakeServer) -> None:
    with open_memory(ws, server, **{"embedding.cache_max_entries": 2}) as mem:
        mem.sync()
        assert mem.status()["embedding"]["cache_entries"] == 2


def test_secrets_are_masked_before_they_leave_the_machine(ws: Path, server: FakeServer) -> None:
    secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789"
    note = ws / "memory" / "keys.md"
    note.write_text(f"The staging key is {secret} and ops mail is ops@example.com\n")
    with open_memory(ws, server) as mem:
        mem.sync()
        mem.search(f"what is {secret}", refresh=False)
    sent = " ".join(sent_texts(server))
    assert secret not in sent and "ops@example.com" not in sent
    assert "[REDACTED" in sent
    assert secret in note.read_text()  # the file itself is never rewritten


def test_packaged_model_finds_a_chinese_note_for_an_english_question(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-28.md").write_text("周五的部署被取消了，改到下周二。\n")
    (tmp_path / "memory" / "2026-11-27.md").write_text(
        "The cafeteria menu now has ramen on Wednesdays.\n"
    )
    with Memory(tmp_path, overrides={"embedding.provider": "local"}) as mem:
        response = mem.search("Was the Friday deployment cancelled?", mode="vector", min_score=0.0)
        assert response.mode == "vector"
        assert response[0].path == "memory/2026-11-28.md"
