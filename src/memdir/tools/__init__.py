"""Agent tools over a memory workspace: ``memory_search``, ``memory_get``, ``memory_write``.

Each tool is defined once (:class:`ToolSpec`: name, description for the model, argument and
result schemas, handler) and served unchanged by every surface: the MCP server
(:mod:`memdir.mcp`), exported function-calling schemas (:func:`tool_schemas`, ``memdir
tools``) and the Python dispatcher (:class:`MemoryTools`)::

    from memdir.tools import MemoryTools, tool_schemas

    tools = MemoryTools.open("~/notes", scope="main")
    openai_tools = tool_schemas("openai")               # pass to chat.completions.create
    reply = tools.dispatch(call.function.name, call.function.arguments)  # JSON text
"""

from memdir.tools.access import AccessPolicy, PrivateMarks, check_agent_id, resolve_scope
from memdir.tools.args import ToolError
from memdir.tools.dispatch import TOOLS, MemoryTools, ToolArguments, ToolResult, tool_schemas
from memdir.tools.spec import FORMATS, ToolSpec

__all__ = [
    "FORMATS",
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
