"""The lossless-context tools, defined once like the memory tools (:class:`~memdir.tools.ToolSpec`)
and served by the same surfaces: :class:`~memdir.tools.MemoryTools` (Python), MCP
(``memdir serve --lcm``), the function-calling export (``memdir tools --lcm``) and the CLI
(``memdir call lcm_grep …``, ``memdir lcm grep|describe|expand``).

* ``lcm_grep(pattern, mode=text|regex, scope=messages|summaries|both, sort=recency|relevance,
  limit)``: full text over messages and summaries with the index's CJK-aware words (every word
  of the pattern, else any of them ranked by BM25), or a Python regular expression;
* ``lcm_describe(id)``: a summary's depth, time span, token counts, parent and children;
* ``lcm_expand(id, max_tokens?)``: the exact original messages under a summary, recursively,
  paged (``offset`` / ``next_offset``) when larger than ``max_tokens``.

Each takes an optional ``session`` (default: the conversation the host bound the tools to, else
the most recent one). Ids are a summary's ``sum_…`` or a message's number, as ``lcm_grep`` gives.
"""

from __future__ import annotations

from typing import Any

from memdir.context.lcm import (
    DEFAULT_EXPAND_TOKENS,
    GREP_MODES,
    GREP_SCOPES,
    GREP_SORTS,
    MAX_GREP_LIMIT,
    LosslessContext,
)
from memdir.errors import MemdirError, NotFoundError, UsageError
from memdir.tools.args import Arguments, ToolError, invalid
from memdir.tools.spec import ToolSpec

__all__ = ["LCM_TOOLS", "lcm_prompt_lines"]

_SESSION = {
    "type": "string",
    "minLength": 1,
    "description": "Conversation (session id) to search; default: the current or most recent one.",
}
_ID = {
    "type": "string",
    "minLength": 1,
    "description": "A summary id ('sum_' and 16 hex digits) or a message id, as lcm_grep returns.",
}

GREP_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "minLength": 1,
            "description": "Words to find (mode text), or a regular expression (mode regex).",
        },
        "mode": {
            "type": "string",
            "enum": list(GREP_MODES),
            "default": "text",
            "description": "text: the pattern's words, CJK included (all of them, else any); "
            "regex: a regular expression (Python syntax).",
        },
        "scope": {
            "type": "string",
            "enum": list(GREP_SCOPES),
            "default": "both",
            "description": "Search the original messages, the summaries, or both.",
        },
        "sort": {
            "type": "string",
            "enum": list(GREP_SORTS),
            "default": "recency",
            "description": "recency: the most recently stored first; relevance: best match (BM25) first.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_GREP_LIMIT,
            "default": 20,
            "description": "Most results to return.",
        },
        "session": _SESSION,
    },
    "required": ["pattern"],
}
GREP_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string"},
        "session": {"type": ["string", "null"]},
        "mode": {"type": "string"},
        "matched": {"type": "string"},
        "results": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["pattern", "mode", "matched", "results"],
}
DESCRIBE_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"id": _ID},
    "required": ["id"],
}
DESCRIBE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string"},
        "id": {"type": ["string", "integer"]},
        "session": {"type": "string"},
    },
    "required": ["kind", "id", "session"],
}
EXPAND_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": _ID,
        "max_tokens": {
            "type": "integer",
            "minimum": 1,
            "description": f"Most tokens of messages to return in one page (default {DEFAULT_EXPAND_TOKENS}).",
        },
        "offset": {
            "type": "integer",
            "minimum": 0,
            "description": "First message of the page, counted from 0 (the next_offset of the previous page).",
        },
    },
    "required": ["id"],
}
EXPAND_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": ["string", "integer"]},
        "total_messages": {"type": "integer"},
        "total_tokens": {"type": "integer"},
        "offset": {"type": "integer"},
        "next_offset": {"type": ["integer", "null"]},
        "tokens": {"type": "integer"},
        "messages": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["id", "total_messages", "offset", "next_offset", "messages"],
}


def _run(ctx: Any, work: Any) -> dict[str, Any]:
    """Open the workspace's store, run ``work(lcm)``, close it; memdir errors as tool errors."""
    lcm = LosslessContext(ctx.config)
    try:
        return work(lcm)  # type: ignore[no-any-return]
    except NotFoundError as exc:
        raise ToolError(exc.message, code="missing", hint=exc.hint) from None
    except UsageError as exc:
        raise invalid(exc.message) from None
    except MemdirError as exc:
        raise ToolError(exc.message, code="failed", hint=exc.hint) from None
    finally:
        lcm.close()


def _session(ctx: Any, args: Arguments) -> str | None:
    given = args.text("session")
    return given or getattr(ctx, "session", None)


def grep_handler(ctx: Any, args: Arguments) -> dict[str, Any]:
    pattern = args.required_text("pattern", strip=False)
    mode = args.choice("mode") or "text"
    scope = args.choice("scope") or "both"
    sort = args.choice("sort") or "recency"
    limit = args.integer("limit") or 20
    session = _session(ctx, args)
    args.finish(tuple(GREP_INPUT["properties"]))
    return _run(
        ctx,
        lambda lcm: _redacted(
            ctx,
            lcm.grep(pattern, session=session, mode=mode, scope=scope, sort=sort, limit=limit),
            "results",
            "snippet",
        ),
    )


def _ref(args: Arguments) -> object:
    value = args.raw("id")
    if value is None:
        raise invalid("id is required: a summary id (sum_…) or a message id")
    return value


def describe_handler(ctx: Any, args: Arguments) -> dict[str, Any]:
    ref = _ref(args)
    args.finish(tuple(DESCRIBE_INPUT["properties"]))

    def work(lcm: LosslessContext) -> dict[str, Any]:
        out = lcm.describe(ref)
        if "content" in out:
            out["content"] = ctx.redact(out["content"])
        return out

    return _run(ctx, work)


def expand_handler(ctx: Any, args: Arguments) -> dict[str, Any]:
    ref = _ref(args)
    max_tokens = args.integer("max_tokens") or DEFAULT_EXPAND_TOKENS
    offset = args.integer("offset") or 0
    args.finish(tuple(EXPAND_INPUT["properties"]))
    return _run(
        ctx,
        lambda lcm: _redacted(
            ctx, lcm.expand(ref, max_tokens=max_tokens, offset=offset), "messages", "content"
        ),
    )


def _redacted(ctx: Any, out: dict[str, Any], key: str, field: str) -> dict[str, Any]:
    """Mask secrets in each entry's text when ``redact.tool_results`` is on."""
    for entry in out[key]:
        entry[field] = ctx.redact(entry[field])
    return out


GREP = ToolSpec(
    name="lcm_grep",
    title="Search the conversation's history",
    description=(
        "Search every message of this conversation, including those compacted out of your "
        "context, and the summaries that replaced them. mode 'text' (default) finds the words "
        "of the pattern (English and Chinese alike); 'regex' takes a regular expression. "
        "scope: messages, summaries or both; sort: recency or relevance. Each message hit "
        "names the summary covering it: lcm_expand that id for the exact original messages."
    ),
    input_schema=GREP_INPUT,
    output_schema=GREP_OUTPUT,
    handler=grep_handler,
    read_only=True,
    idempotent=True,
)
DESCRIBE = ToolSpec(
    name="lcm_describe",
    title="Describe a summary",
    description=(
        "Describe a summary of this conversation by its id (sum_…): depth (0 covers messages, "
        "higher depths cover summaries), time span, token counts, its parent and its children, "
        "and its text. A message id says which summary covers that message."
    ),
    input_schema=DESCRIBE_INPUT,
    output_schema=DESCRIBE_OUTPUT,
    handler=describe_handler,
    read_only=True,
    idempotent=True,
)
EXPAND = ToolSpec(
    name="lcm_expand",
    title="Expand a summary",
    description=(
        "Return the exact original messages a summary (sum_…) stands for, in order, however "
        "deep it is. Large summaries come in pages of at most max_tokens: call again with "
        "offset = next_offset until next_offset is null."
    ),
    input_schema=EXPAND_INPUT,
    output_schema=EXPAND_OUTPUT,
    handler=expand_handler,
    read_only=True,
    idempotent=True,
)

LCM_TOOLS: tuple[ToolSpec, ...] = (GREP, DESCRIBE, EXPAND)
"""The lossless-context tools, in the order they are listed."""


def lcm_prompt_lines(tools: tuple[str, ...]) -> list[str]:
    """The system-prompt section for the offered lcm tools (``[]`` when none is offered)."""
    names = [spec.name for spec in LCM_TOOLS if spec.name in tools]
    if not names:
        return []
    return [
        "## Conversation History",
        "Older parts of this conversation may appear only as <summary id=…> blocks. Nothing is "
        "lost: " + ", ".join(names) + " reach the original messages. Search with lcm_grep, "
        "then lcm_expand the summary a hit names to read the exact words before relying on a "
        "detail a summary left out.",
        "",
    ]
