"""Agent tools over a memory workspace: ``memory_search``, ``memory_get``, ``memory_write``,
and the lossless-context tools ``lcm_grep``, ``lcm_describe``, ``lcm_expand`` (:mod:`memdir.context.tools`).

Each tool is defined once (:class:`ToolSpec`: name, description for the model, argument and
result schemas, handler) and served unchanged by every surface: the MCP server
(:mod:`memdir.mcp`), exported function-calling schemas (:func:`tool_schemas`, ``memdir
tools``) and the Python dispatcher (:class:`MemoryTools`)::

    from memdir.tools import MemoryTools, tool_schemas

    tools = MemoryTools.open("~/notes", scope="main")
    openai_tools = tool_schemas("openai")               # pass to chat.completions.create
    reply = tools.dispatch(call.function.name, call.function.arguments)  # JSON text
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memdir.tools.access import AccessPolicy, PrivateMarks, check_agent_id, resolve_scope
    from memdir.tools.args import ToolError
    from memdir.tools.dispatch import (
        ALL_TOOLS,
        LCM_TOOLS,
        TOOLS,
        MemoryTools,
        ToolArguments,
        ToolResult,
        tool_schemas,
    )
    from memdir.tools.spec import FORMATS, ToolSpec

# Imported on first use (PEP 562): `memdir tools` and `memdir.tools.spec` need no dispatcher.
_LAZY = {
    "AccessPolicy": "memdir.tools.access",
    "PrivateMarks": "memdir.tools.access",
    "check_agent_id": "memdir.tools.access",
    "resolve_scope": "memdir.tools.access",
    "ToolError": "memdir.tools.args",
    "TOOLS": "memdir.tools.dispatch",
    "ALL_TOOLS": "memdir.tools.dispatch",
    "LCM_TOOLS": "memdir.tools.dispatch",
    "MemoryTools": "memdir.tools.dispatch",
    "ToolArguments": "memdir.tools.dispatch",
    "ToolResult": "memdir.tools.dispatch",
    "tool_schemas": "memdir.tools.dispatch",
    "FORMATS": "memdir.tools.spec",
    "ToolSpec": "memdir.tools.spec",
}

__all__ = [
    "ALL_TOOLS",
    "FORMATS",
    "LCM_TOOLS",
    "TOOLS",
    "AccessPolicy",
    "MemoryTools",
    "PrivateMarks",
    "ToolArguments",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "check_agent_id",
    "resolve_scope",
    "tool_schemas",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memdir.tools' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
