"""The system-prompt section that tells an agent when and how to use the memory tools.

It follows OpenClaw's "Memory Recall" section (spec §10.3, case 96): nothing when no memory
tool is available; otherwise a heading, the recall guidance for the tools at hand, guidance on
``memory_write`` when it is available, one citations line, and a final blank line so the next
section starts after an empty line::

    >>> print(memory_prompt(tools=["memory_search", "memory_get"], citations="off"))
    ## Memory Recall
    Before answering anything about prior work, decisions, dates, people, preferences, or todos: run memory_search on MEMORY.md + memory/*.md; then use memory_get to pull only the needed lines. If low confidence after search, say you checked.
    Citations are disabled: do not mention file paths or line numbers in replies unless the user explicitly asks.
    <BLANKLINE>

The same text is the MCP server's ``instructions`` and ``memdir prompt``'s output.
"""

from __future__ import annotations

from collections.abc import Iterable

from memdir.config import SCOPES
from memdir.errors import UsageError

__all__ = ["TOOL_NAMES", "memory_prompt", "memory_prompt_lines"]

TOOL_NAMES = ("memory_search", "memory_get", "memory_write")

_TOPICS = "prior work, decisions, dates, people, preferences, or todos"
_CITATIONS_ON = (
    "Citations: include Source: <path#line> when it helps the user verify memory snippets."
)
_CITATIONS_OFF = (
    "Citations are disabled: do not mention file paths or line numbers in replies unless the "
    "user explicitly asks."
)


def memory_prompt_lines(
    *,
    tools: Iterable[str] = TOOL_NAMES,
    citations: str = "on",
    scope: str = "main",
    sessions: bool = False,
) -> list[str]:
    """The section as lines; ``[]`` when ``tools`` holds no memory tool, else ending with ``""``.

    ``citations`` is ``on`` or ``off``; ``scope`` (``main``, ``group``, ``shared``) says
    whether long-term memory is available; ``sessions`` mentions indexed transcripts.
    """
    available = set(tools)
    unknown = sorted(available.difference(TOOL_NAMES))
    if unknown:
        raise UsageError(f"unknown tool(s) {', '.join(unknown)}; use {', '.join(TOOL_NAMES)}")
    if citations not in ("on", "off"):
        raise UsageError(f"citations must be 'on' or 'off', got {citations!r}")
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    search, get, write = (name in available for name in TOOL_NAMES)
    if not (search or get or write):
        return []
    main = scope == "main"
    lines = ["## Memory Recall" if search or get else "## Memory"]
    lines.extend(_recall(search=search, get=get, main=main, sessions=sessions))
    if write:
        lines.extend(_writing(main=main))
    if search or get:
        lines.append(_CITATIONS_OFF if citations == "off" else _CITATIONS_ON)
    lines.append("")
    return lines


def memory_prompt(
    *,
    tools: Iterable[str] = TOOL_NAMES,
    citations: str = "on",
    scope: str = "main",
    sessions: bool = False,
) -> str:
    """The section as text (lines joined with ``\\n``); ``""`` when no memory tool is given."""
    return "\n".join(
        memory_prompt_lines(tools=tools, citations=citations, scope=scope, sessions=sessions)
    )


def _recall(*, search: bool, get: bool, main: bool, sessions: bool) -> list[str]:
    corpus = "MEMORY.md + memory/*.md" if main else "memory/*.md"
    if sessions and main:
        corpus += " + indexed session transcripts"
    lines: list[str] = []
    if search and get:
        lines.append(
            f"Before answering anything about {_TOPICS}: run memory_search on {corpus}; then use "
            "memory_get to pull only the needed lines. If low confidence after search, say you "
            "checked."
        )
    elif search:
        lines.append(
            f"Before answering anything about {_TOPICS}: run memory_search on {corpus} and answer "
            "from the matching results. If low confidence after search, say you checked."
        )
    elif get:
        lines.append(
            f"For questions about {_TOPICS} that already point to a specific memory file or "
            "note: run memory_get to pull only the needed lines."
        )
    if (search or get) and not main:
        lines.append(
            "This is a group or shared session: long-term memory (MEMORY.md) and private notes "
            "are not available here, and personal details from memory should stay out of replies."
        )
    return lines


def _writing(*, main: bool) -> list[str]:
    lines = [
        "Write it down: nothing survives this conversation unless you save it with "
        "memory_write. Save when the user asks you to remember something, and on your own when "
        "you learn something worth keeping: decisions and their reasons, preferences, facts "
        "about people and projects, commitments and todos, lessons learned. Skip small talk, "
        "what memory already holds, and anything secret (passwords, keys, card numbers).",
        "Write one short, self-contained note per fact, with names and absolute dates "
        '(2026-01-12, not "yesterday"). target "daily" (the default) appends to today\'s log, '
        "memory/YYYY-MM-DD.md: events, progress, what happened.",
    ]
    if main:
        lines.append(
            'target "long_term" appends to MEMORY.md, the curated memory of every private '
            "session: only durable facts, stable preferences and key decisions."
        )
    else:
        lines.append(
            'target "long_term" is not available in this session; use the daily log and leave '
            "private details out."
        )
    lines.append("Memory is append-only: to correct a note, write the correction with its date.")
    return lines
