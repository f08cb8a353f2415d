"""memory_search: result shape, citations (spec case 91), arguments, unavailable (case 92)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from memdir.errors import EmbeddingError, StorageError
from memdir.tools import MemoryTools
from memdir.tools.search import unavailable

from .helpers import Call


def test_results_carry_citations_and_a_source_line(call: Call) -> None:
    payload, is_error = call("memory_search", {"query": "quokka exporter", "minScore": 0})
    assert not is_error
    assert payload["citations"] == "on" and payload["scope"] == "main"
    assert payload["mode"] == "keyword" and payload["requested_mode"] == "hybrid"
    hit = payload["results"][0]
    assert set(hit) == {
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
    assert re.fullmatch(r"[\w/.-]+\.md#L\d+(-L\d+)?", hit["citation"])
    assert hit["citation"] == f"{hit['path']}#L{hit['start_line']}-L{hit['end_line']}"
    assert hit["snippet"].endswith(f"\n\nSource: {hit['citation']}")


def test_the_words_no_note_holds_are_named(call: Call) -> None:
    """An agent told "no results" cannot tell a memory that knows nothing of the subject from
    a query worded unluckily; ``not_in_memory`` says which words no note holds."""
    payload, is_error = call("memory_search", {"query": "quokka wombat", "minScore": 0})
    assert not is_error
    assert payload["not_in_memory"] == ["wombat"]
    assert payload["results"]  # the quokka notes are still found
    payload, _ = call("memory_search", {"query": "Wombat"})
    assert payload["not_in_memory"] == ["Wombat"] and payload["results"] == []
    payload, _ = call("memory_search", {"query": "quokka"})
    assert payload["not_in_memory"] == []


def test_results_carry_the_heading_path_and_date(call: Call) -> None:
    payload, _ = call("memory_search", {"query": "quokka", "minScore": 0, "maxResults": 50})
    shown = {hit["path"]: (hit["heading"], hit["date"]) for hit in payload["results"]}
    assert shown["memory/2026-01-12.md"] == ("2026-01-12", "2026-01-12")
    assert shown["memory/projects/billing.md"] == ("Billing", None)
    assert shown["MEMORY.md"] == ("Memory", None)


def test_citations_off_drops_the_citation_and_the_source_line(
    open_tools: Callable[..., MemoryTools],
) -> None:
    tools = open_tools(overrides={"citations": "off"})
    payload = tools.call("memory_search", {"query": "quokka", "minScore": 0}).payload
    assert payload["citations"] == "off" and payload["results"]
    for hit in payload["results"]:
        assert "citation" not in hit
        assert "Source:" not in hit["snippet"]


def test_warnings_and_mode_are_reported(open_tools: Callable[..., MemoryTools]) -> None:
    tools = open_tools(overrides={"search.mode": "hybrid"})
    payload = tools.call("memory_search", {"query": "quokka"}).payload
    assert payload["requested_mode"] == "hybrid" and payload["mode"] == "keyword"
    assert any("vector search unavailable" in w for w in payload["warnings"])


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "quokka", "maxResults": 2, "minScore": 0},
        {"query": "quokka", "max_results": 2, "min_score": 0},
        {"query": "quokka", "maxResults": "2", "minScore": "0"},
        {"query": "quokka", "maxResults": 2.9, "minScore": 0.0},
        '{"query": "quokka", "maxResults": 2, "minScore": 0, "source": null}',
    ],
    ids=["camel", "snake", "strings", "float", "json-text-with-null"],
)
def test_argument_spellings(call: Call, arguments: object) -> None:
    payload, is_error = call("memory_search", arguments)
    assert not is_error, payload
    assert len(payload["results"]) == 2


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "query is required"),
        ({"query": ""}, "query is required"),
        ({"query": "   "}, "query is required"),
        ({"query": 42}, "query must be a string"),
        ({"query": "x", "maxResults": 0}, "maxResults must be at least 1"),
        ({"query": "x", "maxResults": 500}, "maxResults must be at most 200"),
        ({"query": "x", "maxResults": True}, "maxResults must be an integer, got a boolean"),
        ({"query": "x", "maxResults": "many"}, "maxResults must be an integer"),
        ({"query": "x", "minScore": 1.5}, "minScore must be at most 1"),
        ({"query": "x", "minScore": "nan"}, "minScore must be a finite number"),
        ({"query": "x", "source": "web"}, "source must be one of memory, sessions"),
        ({"query": "x", "corpus": "wiki"}, "unknown argument(s) corpus"),
        ({"query": "x", "namespace": "agent"}, "needs an agent id"),
        ({"query": "\udc00"}, "not valid Unicode"),
    ],
)
def test_bad_input_is_a_tool_error_naming_the_argument(
    call: Call, arguments: dict[str, object], fragment: str
) -> None:
    payload, is_error = call("memory_search", arguments)
    assert is_error
    assert payload["code"] == "invalid_arguments"
    assert fragment in payload["error"]
    assert payload["tool"] == "memory_search"


def test_source_filter_and_sessions_not_indexed(call: Call) -> None:
    payload, _ = call("memory_search", {"query": "quokka", "source": "sessions", "minScore": 0})
    assert payload["results"] == []
    assert "not indexed" in payload["warnings"][-1]
    payload, _ = call("memory_search", {"query": "quokka", "source": "memory", "minScore": 0})
    assert payload["results"]


def test_no_match_is_an_empty_list_not_an_error(call: Call) -> None:
    payload, is_error = call("memory_search", {"query": "xylophone"})
    assert not is_error and payload["results"] == []


@pytest.mark.parametrize(
    ("error", "warning", "action"),
    [
        (
            EmbeddingError("HTTP 429: insufficient_quota"),
            "Memory search is unavailable because the embedding provider quota is exhausted.",
            "Top up or switch embedding provider, then retry memory_search.",
        ),
        (
            EmbeddingError("connection refused"),
            "Memory search is unavailable due to an embedding/provider error.",
            "Check embedding provider configuration and retry memory_search.",
        ),
        (
            StorageError("database disk image is malformed"),
            "Memory search is unavailable because the memory index could not be read.",
            "Retry memory_search; if it keeps failing, ask the user to run `memdir status`.",
        ),
    ],
    ids=["quota", "provider", "index"],
)
def test_unavailable_payload(error: Exception, warning: str, action: str) -> None:
    assert isinstance(error, EmbeddingError | StorageError)
    failure = unavailable(error)
    assert failure.code == "unavailable"
    assert failure.extra == {
        "results": [],
        "disabled": True,
        "unavailable": True,
        "warning": warning,
        "action": action,
    }
    assert failure.message == str(error)


def test_a_long_query_is_cut_and_the_agent_is_told(call: Call, tools: MemoryTools) -> None:
    schema = next(t for t in tools.schemas("mcp") if t["name"] == "memory_search")
    assert "2,000 characters" in schema["inputSchema"]["properties"]["query"]["description"]
    payload, is_error = call("memory_search", {"query": "quokka " * 500, "minScore": 0})
    assert not is_error
    assert payload["results"], "the query's start still finds the notes"
    assert any("over the limit of 2,000" in w for w in payload["warnings"])
