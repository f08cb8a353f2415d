"""README's agent loop, run as written: against the loopback server instead of OpenAI, with
scripted input, no chat model for memdir itself (so the extractive fallback writes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from embed.fakes import FakeServer, Reply
from llm.conftest import openai_answer

README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> str:
    text = README.read_text(encoding="utf-8")
    after = text.split("A whole loop, with the agent's model from `memdir.llm`", 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.usefixtures("no_embedder")
def test_the_readme_agent_loop_records_flushes_and_ends(
    tmp_path: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = _example()
    assert '"https://api.openai.com/v1"' in code and '"~/agent-memory"' in code
    ws = tmp_path / "agent-memory"
    ws.mkdir()
    code = code.replace('"https://api.openai.com/v1"', repr(server.url + "/v1"))
    code = code.replace('"~/agent-memory"', repr(str(ws)))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    server.script(
        openai_answer("Noted: PostgreSQL for billing.", usage=(130_000, 20)),
        Reply(
            {
                "error": {
                    "message": "maximum context length is 128000 tokens",
                    "code": "context_length_exceeded",
                }
            },
            status=400,
        ),
    )
    said = iter(
        [
            "We chose PostgreSQL for billing on 2026-03-02.",
            "My colleague Anna prefers email invoices.",  # past the threshold: flush first
            "/new",
            "/quit",
        ]
    )
    printed: list[str] = []
    exec(  # README's own code
        compile(code, str(README), "exec"),
        {
            "input": lambda prompt="": next(said),
            "print": lambda *a: printed.append(" ".join(map(str, a))),
        },
    )

    assert len(server.requests) == 2  # the answer, then the overflowing second call
    names = [p.name for p in (ws / "memory").glob("*.md")]
    hook, day = sorted(names, key=len, reverse=True)  # <day>-<HHMM>.md and <day>.md
    daily = (ws / "memory" / day).read_text(encoding="utf-8")
    assert "PostgreSQL for billing on 2026-03-02" in daily  # the threshold flush
    assert "Anna prefers email invoices" in daily  # the overflow flush
    assert hook.startswith(day.removesuffix(".md") + "-")
    assert printed[0] == "Noted: PostgreSQL for billing."
    assert printed[1].startswith("- user: We chose PostgreSQL")  # the flush's note
    assert printed[2] == f"memory/{hook}"
    [transcript] = [p for p in (ws / "sessions").iterdir() if p.suffix == ".jsonl"]
    kinds = [json.loads(line)["type"] for line in transcript.read_text().splitlines()]
    assert kinds == ["session", "message", "message", "compaction", "message", "compaction"]
