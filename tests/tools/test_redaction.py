"""Redaction of tool results (redact.* settings), on search and get; files are never rewritten."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memdir.errors import ConfigError
from memdir.tools import MemoryTools

NOTE = "memory/ops.md"
TEXT = (
    "# Ops\n"
    "\n"
    "Platypus deploy key: OPENAI_API_KEY=sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU\n"
    "Platypus contact: ops-lead@example.com, ticket TICKET-4242.\n"
    "Platypus db password=hunter2hunter2\n"
)
SECRETS = ("sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU", "ops-lead@example.com", "hunter2hunter2")


@pytest.fixture
def secret_ws(ws: Path) -> Path:
    (ws / NOTE).write_text(TEXT, encoding="utf-8")
    return ws


def _search_and_get(tools: MemoryTools) -> tuple[str, str]:
    search = tools.call("memory_search", {"query": "platypus", "minScore": 0})
    get = tools.call("memory_get", {"path": NOTE, "from": 3, "lines": 3})
    assert not search.is_error and not get.is_error
    (hit,) = search.payload["results"]
    return hit["snippet"], get.payload["text"]


def test_off_by_default(secret_ws: Path, open_tools: Callable[..., MemoryTools]) -> None:
    snippet, text = _search_and_get(open_tools())
    for secret in SECRETS:
        assert secret in snippet and secret in text


def test_on_masks_search_snippets_and_get_text(
    secret_ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    snippet, text = _search_and_get(open_tools(overrides={"redact.tool_results": True}))
    for shown in (snippet, text):
        for secret in SECRETS:
            assert secret not in shown
        assert "[REDACTED:email]" in shown and "[REDACTED:openai_api_key]" in shown
        assert "TICKET-4242" in shown  # not a default pattern
    assert len(text.split("\n")) == 3  # line ranges stay valid
    assert "\n\nSource: memory/ops.md#L1-" in snippet  # the citation follows the masked text
    assert (secret_ws / NOTE).read_text(encoding="utf-8") == TEXT


def test_on_masks_the_heading_path_too(ws: Path, open_tools: Callable[..., MemoryTools]) -> None:
    # A long section: its later pieces carry "## Ask …" in their heading path, not their text.
    lines = "\n".join(f"pager line {i} " + "word " * 20 for i in range(30))
    (ws / NOTE).write_text(f"# Ops\n\n## Ask ops-lead@example.com\n{lines}\nplatypus\n", "utf-8")
    for overrides, heading in [
        ({}, "Ops › Ask ops-lead@example.com"),
        ({"redact.tool_results": True}, "Ops › Ask [REDACTED:email]"),
    ]:
        result = open_tools(overrides=overrides).call("memory_search", {"query": "platypus"})
        (hit,) = result.payload["results"]
        assert hit["heading"] == heading
        assert "ops-lead" not in hit["snippet"]


def test_patterns_can_be_disabled_and_added(
    secret_ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    tools = open_tools(
        overrides={
            "redact.tool_results": True,
            "redact.disable": ["email"],
            "redact.patterns": {"ticket": r"TICKET-\d+"},
        }
    )
    snippet, text = _search_and_get(tools)
    for shown in (snippet, text):
        assert "ops-lead@example.com" in shown
        assert "TICKET-4242" not in shown and "[REDACTED:ticket]" in shown
        assert "hunter2hunter2" not in shown


def test_custom_patterns_from_the_environment(
    secret_ws: Path, open_tools: Callable[..., MemoryTools], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_REDACT_TOOL_RESULTS", "true")
    monkeypatch.setenv("MEMDIR_REDACT_PATTERNS", '{"ticket": "TICKET-\\\\d+"}')
    _, text = _search_and_get(open_tools())
    assert "[REDACTED:ticket]" in text


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"redact.patterns": {"bad": "(unclosed"}}, "not a valid regular expression"),
        ({"redact.patterns": {"bad name": "x"}}, "invalid redaction pattern name"),
        ({"redact.patterns": {"email": "x"}}, "built-in pattern name"),
        ({"redact.patterns": '{"x": 1}'}, "values must be strings"),
        ({"redact.patterns": "not json"}, "expected a JSON object"),
        ({"redact.disable": ["emails"]}, "unknown pattern(s) ['emails']"),
    ],
)
def test_bad_redaction_settings_fail_at_load(
    secret_ws: Path,
    open_tools: Callable[..., MemoryTools],
    overrides: dict[str, object],
    message: str,
) -> None:
    with pytest.raises(ConfigError) as info:
        open_tools(overrides=overrides)
    assert message in str(info.value)
    assert "redact." in str(info.value)  # names the setting
