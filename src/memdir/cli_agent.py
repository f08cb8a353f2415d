"""Agent-facing CLI commands: ``serve``, ``tools``, ``prompt``, ``write`` and ``call``.

They register on :data:`memdir.cli.cli`, which imports this module at its end. Each is a thin
wrapper over :mod:`memdir.tools`, :mod:`memdir.mcp` or :mod:`memdir.prompt`.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir.cli import _shown, _warn, cli, common_options, json_option
from memdir.config import SCOPES
from memdir.tools.spec import FORMATS
from memdir.tools.write import TARGETS

if TYPE_CHECKING:
    from memdir.tools import MemoryTools

__all__: list[str] = []

F = TypeVar("F", bound=Callable[..., Any])

READ_ONLY_TOOLS = ("memory_search", "memory_get")
MEMORY_TOOLS = ("memory_search", "memory_get", "memory_write")
LCM_TOOL_NAMES = ("lcm_grep", "lcm_describe", "lcm_expand")


def agent_options(func: F) -> F:
    """--agent and --scope: who the tool calls are made for."""
    func = click.option(
        "--scope",
        type=click.Choice(SCOPES),
        help="Scope of the calls: main (private one-to-one session), group or shared "
        "(default: the agent's tools.agent_scopes entry, else tools.scope).",
    )(func)
    return click.option(
        "--agent",
        "agent_id",
        envvar="MEMDIR_AGENT",
        help="Agent id: adds its own folder memory/agents/<id>/ to the shared notes.",
    )(func)


def read_only_option(func: F) -> F:
    return click.option(
        "--read-only", is_flag=True, help="Offer only memory_search and memory_get."
    )(func)


def lcm_option(func: F) -> F:
    return click.option(
        "--lcm",
        is_flag=True,
        help="Also offer lcm_grep, lcm_describe and lcm_expand (the conversation history "
        "`memdir lcm` and `memdir chat` store).",
    )(func)


def _names(read_only: bool, lcm: bool) -> tuple[str, ...] | None:
    if not lcm:
        return READ_ONLY_TOOLS if read_only else None
    return (READ_ONLY_TOOLS if read_only else MEMORY_TOOLS) + LCM_TOOL_NAMES


@contextmanager
def _tools(
    agent_id: str | None,
    scope: str | None,
    *,
    read_only: bool = False,
    lcm: bool = False,
    names: tuple[str, ...] | None = None,
) -> Iterator[MemoryTools]:
    from memdir.tools import MemoryTools

    memory = click.get_current_context().meta["memdir.open"]()
    try:
        yield MemoryTools(
            memory,
            scope=scope,
            agent_id=agent_id,
            tools=names if names is not None else _names(read_only, lcm),
        )
    finally:
        memory.close()


@cli.command()
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind with --http.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port for --http; 0 picks a free one.",
)
@click.option(
    "--token",
    envvar="MEMDIR_TOKEN",
    help="Bearer token HTTP clients must send; required to bind a non-loopback address.",
)
@read_only_option
@lcm_option
@agent_options
@common_options
def serve(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    read_only: bool,
    lcm: bool,
    agent_id: str | None,
    scope: str | None,
) -> None:
    """Serve the memory tools to MCP clients (Claude Desktop, Claude Code, Cursor…).

    Over stdio by default: the client starts this command. With --http, serves streamable
    HTTP at http://HOST:PORT/mcp until stopped. The index is kept fresh by a file watcher.

    \b
    Examples:
      memdir serve -w ~/notes
      memdir serve -w ~/notes --http --port 8765
      MEMDIR_TOKEN=... memdir serve --http --host 0.0.0.0
    """
    # The MCP SDK takes about a second to import: only `serve` pays for it.
    from memdir.mcp import check_http_binding, serve_http, serve_stdio, warm_up_in_background

    token = token or None
    if use_http:
        check_http_binding(host, token)
    with _tools(agent_id, scope, read_only=read_only, lcm=lcm) as tools:
        tools.memory.start_watching()
        warm_up_in_background(tools)
        if not use_http:
            serve_stdio(tools)
            return
        # uvicorn shuts down gracefully on SIGTERM/SIGINT, then re-raises the signal; exit
        # cleanly instead, so the Memory (watcher, index) is closed on the way out.
        signal.signal(signal.SIGTERM, _exit_quietly)
        with suppress(KeyboardInterrupt):
            serve_http(
                tools,
                host=host,
                port=port,
                token=token,
                on_ready=lambda url: click.echo(f"memdir: serving MCP at {url}", err=True),
            )


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(0)


@cli.command("tools")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="openai",
    show_default=True,
    help="openai (Chat Completions tools), anthropic (Messages tools) or mcp (tools/list).",
)
@read_only_option
@lcm_option
def tools_cmd(fmt: str, read_only: bool, lcm: bool) -> None:
    """Print the tool definitions as JSON, for a function-calling loop.

    \b
    Examples:
      memdir tools --format openai > tools.json
      memdir tools --format anthropic --read-only
      memdir tools --lcm
    """
    from memdir.tools import tool_schemas

    names = _names(read_only, lcm)
    click.echo(json.dumps(tool_schemas(fmt, tools=names), ensure_ascii=False, indent=2))


@cli.command("prompt")
@click.option(
    "--citations",
    type=click.Choice(["on", "off"]),
    default="on",
    show_default=True,
    help="Whether replies should cite Source: path#line.",
)
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="main",
    show_default=True,
    help="main mentions long-term memory; group and shared leave it out.",
)
@click.option("--sessions", is_flag=True, help="Mention indexed session transcripts.")
@read_only_option
@lcm_option
def prompt_cmd(citations: str, scope: str, sessions: bool, read_only: bool, lcm: bool) -> None:
    """Print the system-prompt section telling an agent when and how to use the tools.

    \b
    Example:
      memdir prompt --read-only --citations off
    """
    from memdir.prompt import memory_prompt

    names = READ_ONLY_TOOLS if read_only else None
    text = memory_prompt(
        tools=names or ("memory_search", "memory_get", "memory_write"),
        citations=citations,
        scope=scope,
        sessions=sessions,
    )
    if lcm:
        from memdir.context.tools import lcm_prompt_lines

        text = "\n".join([text, *lcm_prompt_lines(LCM_TOOL_NAMES)])
    click.echo(text)


@cli.command("write")
@click.argument("content", required=False)
@click.option(
    "--target",
    type=click.Choice(TARGETS),
    default="daily",
    show_default=True,
    help="daily: today's memory/YYYY-MM-DD.md; long_term: MEMORY.md.",
)
@agent_options
@json_option
@common_options
def write_cmd(
    content: str | None, target: str, agent_id: str | None, scope: str | None, as_json: bool
) -> None:
    """Append a note to memory, as the memory_write tool does (CONTENT, or stdin if omitted).

    Put '--' before a note that starts with '-'.

    \b
    Examples:
      memdir write -- "- Alice prefers e-mail for anything with a price in it"
      echo "- Chose PostgreSQL 16 for billing" | memdir write --target long_term
    """
    text = content if content is not None and content != "-" else sys.stdin.read()
    with _tools(agent_id, scope) as tools:
        result = tools.call("memory_write", {"content": text, "target": target})
    if result.is_error:
        from memdir.tools import ToolError

        payload = result.payload
        raise ToolError(payload["error"], code=payload["code"], hint=payload.get("hint"))
    if as_json:
        click.echo(json.dumps(result.payload, ensure_ascii=False, indent=2))
        return
    _warn(result.payload["warnings"])
    click.echo(f"wrote {_shown(result.payload['citation'])}")


@cli.command("call")
@click.argument("name")
@click.argument("arguments", required=False)
@agent_options
@common_options
def call_cmd(name: str, arguments: str | None, agent_id: str | None, scope: str | None) -> None:
    """Run one tool call and print its JSON result (exit 1 if it is an error object).

    ARGUMENTS is a JSON object; '-' or nothing reads it from stdin.

    \b
    Examples:
      memdir call memory_search '{"query": "database decision"}'
      memdir call memory_get '{"path": "MEMORY.md", "from": 1, "lines": 20}'
      memdir call lcm_grep '{"pattern": "数据库", "scope": "messages"}'
    """
    if arguments is not None and arguments != "-":
        raw = arguments
    else:
        raw = "" if arguments is None and sys.stdin.isatty() else sys.stdin.read()
    with _tools(agent_id, scope, names=MEMORY_TOOLS + LCM_TOOL_NAMES) as tools:
        result = tools.call(name, raw)
    click.echo(result.to_json(indent=2))
    if result.is_error:
        click.get_current_context().exit(1)
