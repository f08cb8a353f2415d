"""What a tool is: name, description for the model, argument schema, result schema, handler.

Each tool is defined once, as a :class:`ToolSpec`, and every surface serves that definition
unchanged: MCP ``tools/list`` (:meth:`ToolSpec.to_mcp`), OpenAI function calling
(:meth:`ToolSpec.to_openai`), Anthropic tool use (:meth:`ToolSpec.to_anthropic`) and the
Python dispatcher (:class:`memdir.tools.MemoryTools`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memdir.errors import UsageError

if TYPE_CHECKING:
    from memdir.tools.args import Arguments
    from memdir.tools.context import ToolContext

__all__ = ["FORMATS", "Handler", "ToolSpec"]

FORMATS = ("openai", "anthropic", "mcp")
"""Schema export formats: OpenAI Chat Completions ``tools``, Anthropic ``tools``, MCP ``Tool``."""

Handler = Callable[["ToolContext", "Arguments"], dict[str, Any]]
"""Runs a call: reads its arguments, returns the JSON-ready result or raises ``ToolError``."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One agent tool. ``input_schema`` and ``output_schema`` are JSON Schema objects."""

    name: str
    title: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    handler: Handler
    read_only: bool
    idempotent: bool

    def annotations(self) -> dict[str, Any]:
        """MCP tool annotations (hints for clients: may it change files? reach the internet?)."""
        return {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": False,
            "idempotentHint": self.idempotent,
            "openWorldHint": False,
        }

    def to_mcp(self) -> dict[str, Any]:
        """The MCP ``Tool`` object, as ``tools/list`` returns it."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": _copy(self.input_schema),
            "outputSchema": _copy(self.output_schema),
            "annotations": self.annotations(),
        }

    def to_openai(self) -> dict[str, Any]:
        """An entry of OpenAI Chat Completions ``tools`` (``{"type": "function", ...}``)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": _copy(self.input_schema),
            },
        }

    def to_anthropic(self) -> dict[str, Any]:
        """An entry of Anthropic Messages ``tools``."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": _copy(self.input_schema),
        }

    def export(self, fmt: str) -> dict[str, Any]:
        """The definition in one of :data:`FORMATS`."""
        if fmt == "openai":
            return self.to_openai()
        if fmt == "anthropic":
            return self.to_anthropic()
        if fmt == "mcp":
            return self.to_mcp()
        raise UsageError(f"unknown tool format {fmt!r}; use one of {', '.join(FORMATS)}")


def _copy(value: Any) -> Any:
    """A deep copy of JSON data, so callers can't change a shared schema."""
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return value
