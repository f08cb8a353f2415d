"""``memory_write``: append a note to today's daily file or to long-term memory.

Targets, for a caller without / with an agent id:

* ``daily`` (default): ``memory/YYYY-MM-DD.md`` / ``memory/agents/<id>/YYYY-MM-DD.md``, the
  date taken in the ``timezone`` setting (the system's zone when empty);
* ``long_term``: ``MEMORY.md`` (``memory.md`` if that is the one in use) /
  ``memory/agents/<id>/MEMORY.md``; main scope only.

The append itself is :func:`memdir.writer.append_note` (locked, ``O_APPEND``, fsync'd). The
file is then re-indexed so the note is searchable at once.
"""

from __future__ import annotations

import os
from typing import Any

from memdir.config import today
from memdir.errors import PathError, StorageError, UsageError
from memdir.search.results import citation_for
from memdir.tools.args import Arguments, ToolError, invalid
from memdir.tools.context import ToolContext
from memdir.tools.spec import ToolSpec
from memdir.writer import append_note

__all__ = ["WRITE", "today"]

TARGETS = ("daily", "long_term")
_ACCEPTED = ("content", "target")

DESCRIPTION = (
    "Save a note to memory so it is remembered in later conversations; it is searchable at "
    "once. Appends, never overwrites or deletes. target 'daily' (default) adds to today's log "
    "(memory/YYYY-MM-DD.md): events, progress, things learned today. target 'long_term' adds "
    "to curated memory (MEMORY.md): durable facts, decisions and preferences; private sessions "
    "only. Write one short, self-contained Markdown note: what, who, when (absolute dates) and "
    "why. Save when the user asks you to remember something or you learn something worth "
    "keeping; never save secrets, passwords or keys. To correct a note, write the correction."
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "content": {
            "type": "string",
            "minLength": 1,
            "description": "The note, in Markdown (e.g. '- Alice prefers email for invoices').",
        },
        "target": {
            "type": "string",
            "enum": list(TARGETS),
            "description": "'daily' (today's log, default) or 'long_term' (MEMORY.md).",
        },
    },
    "required": ["content"],
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "target": {"type": "string", "enum": list(TARGETS)},
        "created": {"type": "boolean"},
        "bytes_written": {"type": "integer"},
        "start_line": {"type": "integer"},
        "end_line": {"type": "integer"},
        "citation": {"type": "string"},
        "warnings": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["path", "target", "start_line", "end_line", "citation", "warnings"],
}


def write_memory(ctx: ToolContext, args: Arguments) -> dict[str, Any]:
    """Validate the note, pick the file for this caller, append, re-index."""
    content = args.required_text("content", strip=False)
    target = args.choice("target") or "daily"
    args.finish(_ACCEPTED)
    if "\x00" in content:
        raise invalid("content contains a NUL character; memory files are text")
    size = len(content.encode("utf-8"))
    limit = ctx.config["tools.write_max_bytes"]
    if size > limit:
        raise ToolError(
            f"the note is {size} bytes; the limit is {limit} (tools.write_max_bytes)",
            code="too_large",
            hint="save a shorter summary, or split it into several notes",
        )
    rel, header = _target(ctx, target)
    try:
        path = ctx.access.writable(rel)
        written = append_note(
            path, content, header=header, allow_hardlinks=ctx.config["limits.allow_hardlinks"]
        )
    except PathError as exc:
        raise ToolError(exc.message, code=exc.code, extra={"path": rel}) from None
    except (StorageError, UsageError) as exc:
        raise ToolError(exc.message, code="write_failed", extra={"path": rel}) from None
    warnings = ctx.memory.refresh(paths=[written.path])
    if written.size > ctx.config["limits.max_file_bytes"]:
        warnings.append(
            f"{rel} is now {written.size} bytes, over limits.max_file_bytes; it will not be indexed"
        )
    return {
        "path": rel,
        "target": target,
        "created": written.created,
        "bytes_written": written.bytes_written,
        "start_line": written.start_line,
        "end_line": written.end_line,
        "citation": citation_for(rel, written.start_line, written.end_line),
        "warnings": warnings,
    }


def _target(ctx: ToolContext, target: str) -> tuple[str, str]:
    """The workspace-relative file for ``target`` and the header a new file starts with."""
    access = ctx.access
    folder = f"memory/agents/{access.agent_id}" if access.agent_id else "memory"
    if target == "daily":
        day = today(ctx.config).isoformat()
        return f"{folder}/{day}.md", f"# {day}\n\n"
    if not access.private_session:
        raise ToolError(
            "long-term memory can be written only in the main (private) session",
            code="scope-long-term",
            hint="use target 'daily' for notes from a group or shared session",
        )
    if access.agent_id:
        return f"{folder}/MEMORY.md", "# Memory\n\n"
    try:
        names = set(os.listdir(ctx.memory.workspace.root))
    except OSError:
        names = set()
    name = "memory.md" if "memory.md" in names and "MEMORY.md" not in names else "MEMORY.md"
    return name, "# Memory\n\n"


WRITE = ToolSpec(
    name="memory_write",
    title="Write to memory",
    description=DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    output_schema=OUTPUT_SCHEMA,
    handler=write_memory,
    read_only=False,
    idempotent=False,
)
