"""Running tool calls: :class:`MemoryTools` takes a name and arguments, returns JSON.

>>> with MemoryTools.open("~/notes", agent_id="support-bot") as tools:  # doctest: +SKIP
...     print(tools.dispatch("memory_search", '{"query": "refund policy"}'))

Bad input never raises: an unknown tool, arguments that are not JSON, a missing or mistyped
argument, a refused path all come back as an error object ``{"error": message, "code": code,
"tool": name, ...}`` with :attr:`ToolResult.is_error` set, so an agent loop can hand the text
straight back to the model. Errors in the host's own setup (an invalid ``scope`` or
``agent_id``) raise :class:`~memdir.errors.UsageError`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from memdir.api import Memory
from memdir.context.tools import LCM_TOOLS, lcm_prompt_lines
from memdir.errors import MemdirError, NotFoundError, PathError, UsageError
from memdir.prompt import memory_prompt
from memdir.tools.access import AccessPolicy, PrivateMarks, check_agent_id, resolve_scope
from memdir.tools.args import Arguments, ToolError, parse_arguments
from memdir.tools.context import ToolContext
from memdir.tools.get import GET
from memdir.tools.search import SEARCH
from memdir.tools.spec import FORMATS, ToolSpec
from memdir.tools.write import WRITE

__all__ = [
    "ALL_TOOLS",
    "LCM_TOOLS",
    "TOOLS",
    "MemoryTools",
    "ToolArguments",
    "ToolResult",
    "tool_schemas",
]

TOOLS: tuple[ToolSpec, ...] = (SEARCH, GET, WRITE)
"""Every memory tool, in the order they are listed: what is offered by default."""
ALL_TOOLS: tuple[ToolSpec, ...] = TOOLS + LCM_TOOLS
"""The memory tools and the lossless-context tools (``lcm_grep``, ``lcm_describe``,
``lcm_expand``), which are offered when asked for by name (``tools=``)."""

_BY_NAME = {spec.name: spec for spec in ALL_TOOLS}

ToolArguments = str | bytes | Mapping[str, Any] | None
"""A call's arguments: JSON text (OpenAI), an object (Anthropic, MCP), or nothing."""


def tool_schemas(
    fmt: str = "openai", *, tools: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The definitions of ``tools`` (default: the memory tools) in ``fmt``: ``openai``,
    ``anthropic``, ``mcp``. Name the lcm tools (or pass :data:`ALL_TOOLS`' names) to get them."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown tool format {fmt!r}; use one of {', '.join(FORMATS)}")
    return [spec.export(fmt) for spec in _select(tools)]


def _select(names: Sequence[str] | None) -> tuple[ToolSpec, ...]:
    if names is None:
        return TOOLS
    unknown = [n for n in names if n not in _BY_NAME]
    if unknown:
        raise UsageError(f"unknown tool(s) {', '.join(unknown)}; use {', '.join(_BY_NAME)}")
    return tuple(spec for spec in ALL_TOOLS if spec.name in names)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call: the JSON object for the model, and whether it is an error."""

    tool: str
    payload: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False

    def to_json(self, *, indent: int | None = None) -> str:
        return json.dumps(self.payload, ensure_ascii=False, indent=indent)


class MemoryTools:
    """The memory tools bound to one :class:`Memory` and one caller (scope and agent id).

    ``scope`` defaults to the agent's entry in ``tools.agent_scopes``, else ``tools.scope``.
    ``tools`` names the tools offered (default: the three memory tools; add ``lcm_grep``,
    ``lcm_describe`` and ``lcm_expand`` for the conversation's history). ``session`` binds the
    lcm tools to one conversation (default: the most recent). Calls are serialised, so one
    instance can serve several threads (an MCP server does).
    """

    def __init__(
        self,
        memory: Memory,
        *,
        scope: str | None = None,
        agent_id: str | None = None,
        tools: Sequence[str] | None = None,
        session: str | None = None,
    ) -> None:
        self.memory = memory
        self.session = session
        self.agent_id = check_agent_id(agent_id) if agent_id is not None else None
        self.scope = resolve_scope(memory.config, scope=scope, agent_id=self.agent_id)
        self.specs = _select(tools)
        self._by_name = {spec.name: spec for spec in self.specs}
        self._marks = PrivateMarks()
        self._lock = threading.Lock()
        self._owns_memory = False

    @classmethod
    def open(
        cls,
        workspace: str | os.PathLike[str] = ".",
        *,
        scope: str | None = None,
        agent_id: str | None = None,
        tools: Sequence[str] | None = None,
        session: str | None = None,
        **memory_options: Any,
    ) -> MemoryTools:
        """Open ``workspace`` (options as for :class:`Memory`); :meth:`close` closes it."""
        memory = Memory(workspace, **memory_options)
        try:
            instance = cls(memory, scope=scope, agent_id=agent_id, tools=tools, session=session)
        except BaseException:
            memory.close()
            raise
        instance._owns_memory = True
        return instance

    # -- description ------------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.specs)

    def schemas(self, fmt: str = "openai") -> list[dict[str, Any]]:
        """The offered tools' definitions in ``fmt`` (``openai``, ``anthropic`` or ``mcp``)."""
        return tool_schemas(fmt, tools=self.names)

    def prompt(self) -> str:
        """The system-prompt section for the offered tools, scope and ``citations`` setting."""
        config = self.memory.config
        memory_names = tuple(n for n in self.names if n in {s.name for s in TOOLS})
        text = memory_prompt(
            tools=memory_names,
            citations=config["citations"],
            scope=self.scope,
            sessions="sessions" in config["sources"],
        )
        extra = "\n".join(lcm_prompt_lines(self.names))
        return f"{text}\n{extra}" if text and extra else text or extra

    def warm_up(self) -> list[str]:
        """Index the files now and load a local embedding model, so the first call is fast.

        Returns the warnings of the sync. The MCP server runs this in the background at start.
        """
        with self._lock:
            warnings = self.memory.refresh()
            embedder = self.memory.embedder()
            if embedder is not None and embedder.provider == "local":
                embedder.embed_query("warm up")
        return warnings

    # -- calling ----------------------------------------------------------------------------
    def call(
        self,
        name: str,
        arguments: ToolArguments = None,
        *,
        scope: str | None = None,
        agent_id: str | None = None,
    ) -> ToolResult:
        """Run one call. ``scope``/``agent_id`` override this instance's for this call only."""
        spec = self._by_name.get(name) if isinstance(name, str) else None
        if spec is None:
            return _error(
                str(name),
                ToolError(
                    f"unknown tool {name!r}; available: {', '.join(self.names)}",
                    code="unknown_tool",
                ),
            )
        context = self._context(scope, agent_id)
        try:
            values = parse_arguments(arguments)
            with self._lock:
                payload = spec.handler(context, Arguments(spec.name, values, spec.input_schema))
        except ToolError as exc:
            return _error(spec.name, exc)
        except MemdirError as exc:
            return _error(spec.name, _as_tool_error(exc))
        return ToolResult(spec.name, payload)

    def dispatch(
        self,
        name: str,
        arguments: ToolArguments = None,
        *,
        scope: str | None = None,
        agent_id: str | None = None,
    ) -> str:
        """:meth:`call`, returning the JSON text to hand back to the model."""
        return self.call(name, arguments, scope=scope, agent_id=agent_id).to_json()

    async def acall(
        self,
        name: str,
        arguments: ToolArguments = None,
        *,
        scope: str | None = None,
        agent_id: str | None = None,
    ) -> ToolResult:
        """:meth:`call` for asyncio code, run in a worker thread."""
        import asyncio  # only asyncio code gets here

        return await asyncio.to_thread(self.call, name, arguments, scope=scope, agent_id=agent_id)

    def _context(self, scope: str | None, agent_id: str | None) -> ToolContext:
        agent = self.agent_id if agent_id is None else check_agent_id(agent_id)
        if scope is None and agent == self.agent_id:
            resolved = self.scope
        else:
            resolved = resolve_scope(self.memory.config, scope=scope, agent_id=agent)
        access = AccessPolicy(
            self.memory.workspace, scope=resolved, agent_id=agent, marks=self._marks
        )
        redactor = self.memory.redactor if self.memory.config["redact.tool_results"] else None
        return ToolContext(self.memory, access, redactor, self.session)

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the :class:`Memory` if :meth:`open` created it."""
        if self._owns_memory:
            self.memory.close()

    def __enter__(self) -> MemoryTools:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _as_tool_error(exc: MemdirError) -> ToolError:
    if isinstance(exc, PathError):
        return ToolError(exc.message, code=exc.code, hint=exc.hint)
    if isinstance(exc, UsageError):
        return ToolError(exc.message, code="invalid_arguments", hint=exc.hint)
    if isinstance(exc, NotFoundError):
        return ToolError(exc.message, code="missing", hint=exc.hint)
    return ToolError(exc.message, code="failed", hint=exc.hint)


def _error(tool: str, exc: ToolError) -> ToolResult:
    payload: dict[str, Any] = {"error": exc.message, "code": exc.code, "tool": tool}
    if exc.hint:
        payload["hint"] = exc.hint
    payload.update(exc.extra)
    return ToolResult(tool, payload, is_error=True)
