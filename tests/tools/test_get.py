"""memory_get: the spec's slicing (§10.2) and argument handling; path refusals are in test_paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memdir.tools import MemoryTools

from .helpers import Call

BILLING = "memory/projects/billing.md"  # 5 lines


@pytest.mark.parametrize(
    ("arguments", "text", "span"),
    [
        ({}, "# Billing\n\nInvoices use the quokka exporter.\nline 4\nline 5", (1, 5)),
        ({"from": 3, "lines": 2}, "Invoices use the quokka exporter.\nline 4", (3, 4)),
        ({"from": 4}, "line 4\nline 5", (4, 5)),
        ({"lines": 1}, "# Billing", (1, 1)),
        ({"from": 2.9, "lines": "1"}, "", (2, 2)),
        ({"from_line": 5}, "line 5", (5, 5)),
        ({"from": 9, "lines": 3}, "", (9, 8)),
    ],
    ids=[
        "whole",
        "range",
        "from",
        "lines",
        "coerced",
        "alias",
        "past-eof",
    ],
)
def test_slicing(
    call: Call, arguments: dict[str, object], text: str, span: tuple[int, int]
) -> None:
    payload, is_error = call("memory_get", {"path": BILLING, **arguments})
    assert not is_error, payload
    assert payload == {
        "path": BILLING,
        "text": text,
        "from_line": span[0],
        "to_line": span[1],
        "total_lines": 5,
    }


def test_path_is_normalised(call: Call) -> None:
    payload, is_error = call("memory_get", {"path": " ./memory//projects/billing.md "})
    assert not is_error and payload["path"] == BILLING


@pytest.mark.parametrize(
    ("arguments", "code", "fragment"),
    [
        ({}, "invalid_arguments", "path is required"),
        ({"path": None}, "invalid_arguments", "path is required"),
        ({"path": 7}, "invalid_arguments", "path must be a string"),
        ({"path": ""}, "empty", "path is empty"),
        ({"path": BILLING, "from": "first"}, "invalid_arguments", "from must be an integer"),
        ({"path": BILLING, "from": 0}, "invalid_arguments", "from must be at least 1, got 0"),
        ({"path": BILLING, "from": -3}, "invalid_arguments", "from must be at least 1, got -3"),
        ({"path": BILLING, "from_line": 0}, "invalid_arguments", "from_line must be at least 1"),
        ({"path": BILLING, "lines": 0}, "invalid_arguments", "lines must be at least 1, got 0"),
        ({"path": BILLING, "from": 0.5}, "invalid_arguments", "from must be at least 1, got 0"),
        ({"path": BILLING, "limit": 3}, "invalid_arguments", "unknown argument(s) limit"),
    ],
)
def test_bad_arguments(call: Call, arguments: dict[str, object], code: str, fragment: str) -> None:
    payload, is_error = call("memory_get", arguments)
    assert is_error and payload["code"] == code
    assert fragment in payload["error"]


def test_missing_file_is_an_error_in_the_spec_shape(call: Call) -> None:
    payload, is_error = call("memory_get", {"path": "memory/2030-01-01.md"})
    assert is_error
    assert payload["code"] == "missing"
    assert {k: payload[k] for k in ("path", "text", "disabled")} == {
        "path": "memory/2030-01-01.md",
        "text": "",
        "disabled": True,
    }


@pytest.mark.parametrize(
    ("path", "text", "span"),
    [
        (f"{BILLING}#L3-L4", "Invoices use the quokka exporter.\nline 4", (3, 4)),
        (f"{BILLING}#L5", "line 5", (5, 5)),
        (f"{BILLING}:3-4", "Invoices use the quokka exporter.\nline 4", (3, 4)),
        (f"{BILLING}:1", "# Billing", (1, 1)),
    ],
)
def test_a_citation_reads_its_lines(
    call: Call, path: str, text: str, span: tuple[int, int]
) -> None:
    payload, is_error = call("memory_get", {"path": path})
    assert not is_error, payload
    assert (payload["path"], payload["text"]) == (BILLING, text)
    assert (payload["from_line"], payload["to_line"]) == span


def test_every_citation_search_returns_can_be_fed_back(call: Call) -> None:
    found, is_error = call("memory_search", {"query": "quokka exporter", "minScore": 0})
    assert not is_error and found["results"]
    for hit in found["results"]:
        cited = hit["citation"]
        assert hit["snippet"].endswith(f"Source: {cited}")
        payload, is_error = call("memory_get", {"path": cited})
        assert not is_error, payload
        assert (payload["from_line"], payload["to_line"]) == (hit["start_line"], hit["end_line"])


def test_explicit_lines_win_over_the_citation(call: Call) -> None:
    payload, is_error = call("memory_get", {"path": f"{BILLING}#L3-L4", "from": 5})
    assert not is_error and payload["text"] == "line 5"


def test_a_citation_does_not_get_round_the_scope_rules(
    open_tools: Callable[..., MemoryTools],
) -> None:
    group = open_tools(scope="group")
    for path in ("MEMORY.md#L1-L2", "MEMORY.md:1", "memory/private/diary.md#L1"):
        result = group.call("memory_get", {"path": path})
        assert result.is_error and result.payload["code"].startswith("scope-"), path
        assert "quokka" not in result.to_json()


def test_a_session_transcript_hit_can_be_read(
    ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    (ws / "sessions").mkdir()
    (ws / "sessions" / "s1.jsonl").write_text(
        '{"type":"session","id":"s1"}\n'
        '{"type":"message","message":{"role":"user","content":"where is the wombat ledger?"}}\n'
        '{"type":"message","message":{"role":"assistant","content":"In the wombat vault."}}\n'
        '{"type":"tool","name":"x"}\n',
        encoding="utf-8",
    )
    sessions = {"sources": ["memory", "sessions"]}
    main = open_tools(overrides=sessions)
    found = main.call("memory_search", {"query": "wombat", "minScore": 0}).payload["results"]
    (hit,) = [h for h in found if h["path"] == "sessions/s1.jsonl"]
    assert hit["citation"] == "sessions/s1.jsonl#L2-L3"
    result = main.call("memory_get", {"path": hit["citation"]})
    assert not result.is_error, result.payload
    assert result.payload["text"] == (
        "User: where is the wombat ledger?\nAssistant: In the wombat vault."
    )
    assert (result.payload["from_line"], result.payload["to_line"]) == (2, 3)
    assert result.payload["total_lines"] == 4
    group = open_tools(scope="group", overrides=sessions)
    refused = group.call("memory_get", {"path": hit["citation"]})
    assert refused.is_error and refused.payload["code"] == "scope-sessions"
    assert "wombat" not in refused.to_json()
