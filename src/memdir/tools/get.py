"""``memory_get``: read a memory file or a line range of it (spec §10.2, stricter arguments).

Unlike upstream, every refusal has its own ``code`` and message (see
:meth:`memdir.workspace.Workspace.open_readable` and :mod:`memdir.tools.access`), a
missing file is an error (``missing``) rather than empty text, and ``from``/``lines`` below 1
are refused as the schema says (upstream read 0 as "not given"). The order of checks means an
answer never depends on a file the caller may not see: syntax, then the caller's rules by
name, then the file on disk, then the caller's rules for where it really leads. The file is
opened once and those last rules are checked on the open file, so a link swapped meanwhile
cannot redirect the read. ``path`` may be a citation (``memory/x.md#L3-L5``, ``:3-5``) or a
session transcript's path, as memory_search returns them. A file of another workspace of a
shared PostgreSQL namespace is read from the index's copy (``origin``, ``from_index``), in the
main session only (see :meth:`memdir.Memory.get`).
"""

from __future__ import annotations

from typing import Any

from memdir.errors import NotFoundError, PathError, UsageError, WorkspaceError
from memdir.tools.args import Arguments, ToolError, invalid
from memdir.tools.context import ToolContext
from memdir.tools.spec import ToolSpec
from memdir.workspace import split_citation

__all__ = ["GET"]

_ACCEPTED = ("path", "from", "lines")

DESCRIPTION = (
    "Read a memory file, or only some of its lines, by the path or citation memory_search "
    "returned (e.g. 'memory/2026-01-12.md', 'MEMORY.md' or 'memory/2026-01-12.md#L3-L5'). "
    "Use it after memory_search to pull just the "
    "lines you need: 'from' is the first line (1-based) and 'lines' how many; leave both out "
    "for the whole file. Only the memory files (and session transcripts) memory_search can "
    "return are readable, by workspace-relative path; a refusal explains why (code and error)."
)

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "Workspace-relative path, e.g. 'memory/2026-01-12.md'.",
        },
        "from": {
            "type": "integer",
            "minimum": 1,
            "description": "First line to read, 1-based (default 1).",
        },
        "lines": {
            "type": "integer",
            "minimum": 1,
            "description": "How many lines to read (default: to the end of the file).",
        },
    },
    "required": ["path"],
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "text": {"type": "string"},
        "from_line": {"type": "integer"},
        "to_line": {"type": "integer"},
        "total_lines": {"type": "integer"},
        "origin": {"type": "string"},
        "from_index": {"type": "boolean"},
    },
    "required": ["path", "text", "from_line", "to_line", "total_lines"],
}


def get_memory(ctx: ToolContext, args: Arguments) -> dict[str, Any]:
    """Check the path for this caller, then read the lines."""
    raw = args.text("path", strip=False, check_unicode=False)
    start = args.integer("from", "from_line", "fromLine")
    count = args.integer("lines")
    args.finish(_ACCEPTED)
    if raw is None and not args.given("path"):
        raise invalid("path is required and must be a non-empty string")
    if raw is None:
        raise _refused("path is empty", "empty", "", None)
    workspace = ctx.memory.workspace
    try:
        cited, cited_from, cited_count = split_citation(raw)
        rel = workspace.normalize(cited)
        refused = ctx.access.refusal(rel)
        if refused is not None:
            raise refused
        if start is None and count is None:
            start, count = cited_from, cited_count
        # One open: the caller's rules are checked on the file opened, then it is read.
        piece = ctx.memory.get(
            rel,
            from_line=start or 1,
            lines=count,
            check=ctx.access.check_open,
            shared=ctx.access.private_session,
        )
    except PathError as exc:
        raise _refused(exc.message, exc.code, exc.path or raw, exc.hint) from None
    except NotFoundError as exc:
        raise _refused(exc.message, "missing", raw, exc.hint) from None
    except UsageError as exc:
        raise invalid(exc.message) from None
    except WorkspaceError as exc:
        raise _refused(exc.message, "unreadable", raw, exc.hint) from None
    result = piece.to_dict()
    result["text"] = ctx.redact(piece.text)
    return result


def _refused(message: str, code: str, path: str, hint: str | None) -> ToolError:
    """The spec's error shape ``{path, text: "", disabled: true, error}``, plus ``code``."""
    return ToolError(
        message, code=code, hint=hint, extra={"path": path, "text": "", "disabled": True}
    )


GET = ToolSpec(
    name="memory_get",
    title="Read memory file",
    description=DESCRIPTION,
    input_schema=INPUT_SCHEMA,
    output_schema=OUTPUT_SCHEMA,
    handler=get_memory,
    read_only=True,
    idempotent=True,
)
