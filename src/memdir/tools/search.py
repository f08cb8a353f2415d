"""``memory_search``: find notes by meaning and keywords (spec §10.1)."""

from __future__ import annotations

import re
from typing import Any

from memdir.config import MAX_RESULTS, SCOPES
from memdir.errors import EmbeddingError, MemdirError, UsageError
from memdir.search import MAX_QUERY_CHARS, MODES, SearchResult
from memdir.tools.args import Arguments, ToolError, invalid
from memdir.tools.context import ToolContext
from memdir.tools.spec import ToolSpec

__all__ = ["SEARCH", "unavailable"]

_ACCEPTED = ("query", "maxResults", "minScore", "source", "namespace")
_QUOTA = re.compile(r"insufficient_quota|quota|429")

DESCRIPTION = (
    "Mandatory recall step: search memory (MEMORY.md, the daily notes in memory/YYYY-MM-DD.md, "
    "every other memory/**/*.md, and session transcripts when they are indexed) by meaning and "
    "keywords, in any language. Run it before answering anything about prior work, decisions, "
    "dates, people, preferences or todos. Returns the best-matching snippets with path, line "
    "range, score, heading path and date; quote the 'Source: path#Lx-Ly' line when it helps the user verify. Use "
    "memory_get to read more lines around a hit. 'not_in_memory' lists the words of the query "
    "(and the `quoted` spans) that no note holds: with no results, memory has no record of them (say so, or retry with "
    "other words if they may be written otherwise). If the result has disabled=true, memory "
    "search is unavailable: tell the user rather than guessing."
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "description": (
                "What to recall: a question or keywords, in any language. Put code between "
                "backticks (`relay-workers`, `--check`, `nats://`) to find it as written. Name "
                "times as people say them, not converted: yesterday, last Friday, 上周, 9/1 到 "
                "9/5, since Monday, 昨天下午, 3pm on Sep 3, the last time, 第一次 are read against "
                "today and the notes' dates and entry times. Only "
                f"the first {MAX_QUERY_CHARS:,} characters are searched (a warning says so)."
            ),
        },
        "maxResults": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "description": "Most results to return (default: the configured limit, usually 6).",
        },
        "minScore": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "description": (
                "Answer only if the best result scores at least this, 0-1 (default usually"
                " 0.35; keyword search: half of it when memory holds every word of the query);"
                " the other results are kept down to half of that."
            ),
        },
        "source": {
            "type": "string",
            "enum": ["memory", "sessions"],
            "description": "Only Markdown notes ('memory') or only session transcripts.",
        },
        "namespace": {
            "type": "string",
            "enum": ["agent", "shared"],
            "description": "Only your own agent folder ('agent') or only shared notes ('shared').",
        },
    },
    "required": ["query"],
}

_RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "start_line": {"type": "integer", "minimum": 1},
        "end_line": {"type": "integer", "minimum": 1},
        "score": {"type": "number"},
        "snippet": {"type": "string"},
        "source": {"type": "string", "enum": ["memory", "sessions"]},
        "citation": {"type": "string"},
        "heading": {
            "type": "string",
            "description": "Where the snippet sits in its file: title › section › subsection.",
        },
        "date": {
            "type": ["string", "null"],
            "description": "The day the snippet speaks of (YYYY-MM-DD), when known.",
        },
    },
    "required": ["path", "start_line", "end_line", "score", "snippet", "source", "heading", "date"],
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "mode": {"type": "string", "enum": list(MODES)},
        "requested_mode": {"type": "string", "enum": list(MODES)},
        "citations": {"type": "string", "enum": ["on", "off"]},
        "scope": {"type": "string", "enum": list(SCOPES)},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "elapsed_ms": {"type": "number"},
        "not_in_memory": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Words of the query that no note holds, as the query writes them.",
        },
        "results": {"type": "array", "items": _RESULT_SCHEMA},
    },
    "required": ["query", "mode", "citations", "scope", "warnings", "not_in_memory", "results"],
}


def unavailable(error: MemdirError) -> ToolError:
    """The spec's "unavailable" answer: ``disabled: true`` plus a warning and an action."""
    message = str(error)
    if _QUOTA.search(message.lower()):
        warning = "Memory search is unavailable because the embedding provider quota is exhausted."
        action = "Top up or switch embedding provider, then retry memory_search."
    elif isinstance(error, EmbeddingError):
        warning = "Memory search is unavailable due to an embedding/provider error."
        action = "Check embedding provider configuration and retry memory_search."
    else:
        warning = "Memory search is unavailable because the memory index could not be read."
        action = "Retry memory_search; if it keeps failing, ask the user to run `memdir status`."
    return ToolError(
        message,
        code="unavailable",
        extra={
            "results": [],
            "disabled": True,
            "unavailable": True,
            "warning": warning,
            "action": action,
        },
    )


def search_memory(ctx: ToolContext, args: Arguments) -> dict[str, Any]:
    """Run the search with the caller's filter; shape snippets for citations and redaction."""
    query = args.required_text("query")
    max_results = args.integer("maxResults", "max_results")
    min_score = args.number("minScore", "min_score")
    source = args.choice("source")
    namespace = args.choice("namespace")
    args.finish(_ACCEPTED)
    access = ctx.access
    if namespace == "agent" and access.agent_id is None:
        raise invalid("namespace 'agent' needs an agent id, and this session has none")
    warnings: list[str] = []
    if source == "sessions" and "sessions" not in ctx.config["sources"]:
        warnings.append("session transcripts are not indexed (see the 'sources' setting)")
    elif source == "sessions" and not access.private_session:
        warnings.append("session transcripts are searched only in the main (private) session")
    # Where this caller may not see transcripts, none are searched: they would only be
    # filtered out afterwards, after crowding the notes out of the candidates.
    sources = [source] if source else None if access.sees_sessions(namespace) else ["memory"]
    try:
        response = ctx.memory.search(
            query,
            max_results=max_results,
            min_score=min_score,
            sources=sources,
            path_filter=access.search_filter(namespace),
        )
    except UsageError as exc:
        raise invalid(exc.message) from None
    except MemdirError as exc:
        raise unavailable(exc) from None
    citations = str(ctx.config["citations"])
    return {
        "query": response.query,
        "mode": response.mode,
        "requested_mode": response.requested_mode,
        "citations": citations,
        "scope": access.scope,
        "warnings": [*response.warnings, *warnings],
        "elapsed_ms": round(response.elapsed_ms, 3),
        "not_in_memory": list(response.not_in_memory),
        "results": [_result(ctx, hit, citations) for hit in response.results],
    }


def _result(ctx: ToolContext, hit: SearchResult, citations: str) -> dict[str, Any]:
    item: dict[str, Any] = dict(hit.to_dict())
    item["heading"] = ctx.redact(hit.heading)
    snippet = ctx.redact(hit.snippet)
    if citations == "on":
        item["snippet"] = f"{snippet.strip()}\n\nSource: {hit.citation}"
    else:
        item["snippet"] = snippet
        item.pop("citation", None)
    return item


SEARCH = ToolSpec(
    name="memory_search",
    title="Search memory",
    description=DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    output_schema=OUTPUT_SCHEMA,
    handler=search_memory,
    read_only=True,
    idempotent=True,
)
