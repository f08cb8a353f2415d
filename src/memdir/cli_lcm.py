"""``memdir lcm``: the lossless context store from the command line.

``import FILE`` stores a Claude Code or OpenClaw (memdir) transcript as a conversation and
compacts it as a live session would; ``status``, ``grep PATTERN``, ``describe ID``,
``expand ID`` and ``compact`` read (and compact) one conversation, ``--session ID`` (default:
the most recent). Each wraps :class:`memdir.context.LosslessContext`, the object the
``lcm_*`` tools use, and takes ``--json``. Registered on :data:`memdir.cli.cli`, which imports
this module at its end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir.cli import _emit_json, _shown, _warn, cli, common_options, json_option

if TYPE_CHECKING:
    from memdir.context.lcm import LosslessContext

__all__: list[str] = []

F = TypeVar("F", bound=Callable[..., Any])


def session_option(func: F) -> F:
    return click.option(
        "--session",
        "session",
        metavar="ID",
        help="The conversation (session id); default: the most recently updated one.",
    )(func)


@contextmanager
def _lcm(*, create: bool = False) -> Iterator[LosslessContext]:
    from memdir.context.lcm import LosslessContext

    config = click.get_current_context().meta["memdir.config"]()
    if create:
        config.workspace.mkdir(parents=True, exist_ok=True)
    lcm = LosslessContext(config)
    try:
        yield lcm
    finally:
        lcm.close()


@cli.group()
def lcm() -> None:
    """Lossless context: every message of a conversation kept, compacted into summaries.

    The store is lcm.sqlite beside the index (.memdir/ by default). `memdir chat` records its
    own conversations there; `memdir lcm import` adds a transcript. Summaries expand back to
    exactly the messages they cover.
    """


@lcm.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@session_option
@click.option(
    "--no-compact", is_flag=True, help="Store the messages only; compact later (or never)."
)
@json_option
@common_options
def import_cmd(file: Path, session: str | None, no_compact: bool, as_json: bool) -> None:
    """Store a transcript (Claude Code or OpenClaw JSONL) as a conversation.

    The session id is --session, else the transcript's, else the file name. The messages are
    compacted as they arrive, as a live session with a window of context.window_tokens would
    be (with no model configured, by the extractive fallback). Importing the same file again
    adds only the messages not stored yet.

    \b
    Examples:
      memdir lcm import ~/.claude/projects/-home-me-app/0b6c….jsonl
      memdir lcm import sessions/abc.jsonl --session abc --set context.window_tokens=8000
    """
    with _lcm(create=True) as store:
        report = store.import_transcript(file, session=session, compact=not no_compact)
    if as_json:
        _emit_json(report)
        return
    _warn(report["warnings"])
    click.echo(
        f"session {_shown(report['session'])}: {report['messages_added']} of "
        f"{report['messages_read']} messages added ({report['format']}), "
        f"{report['summaries_written']} summaries written, context {report['context_tokens']} "
        f"tokens, in {report['elapsed_s']:.2f}s"
    )


@lcm.command("status")
@session_option
@json_option
@common_options
def status_cmd(session: str | None, as_json: bool) -> None:
    """Show the store's conversations and one conversation's context in numbers."""
    with _lcm() as store:
        data = store.status(session)
    if as_json:
        _emit_json(data)
        return
    click.echo(f"store: {_shown(data['path'])} ({data['token_counter']} tokens)")
    if not data["sessions"]:
        click.echo("no conversation stored")
        return
    click.echo(
        f"{len(data['sessions'])} session(s); the newest: {_shown(data['sessions'][0]['id'])}"
    )
    one = data["session"]
    depths = ", ".join(f"depth {d}: {n}" for d, n in one["summaries_by_depth"].items()) or "none"
    click.echo(
        f"session {_shown(one['id'])}: {one['messages']} messages, summaries {depths}; context "
        f"{one['context_tokens']} tokens ({one['summaries_in_context']} summaries + "
        f"{one['raw_in_context']} raw messages), trigger {data['trigger_tokens']}"
    )
    _warn(one["problems"])


@lcm.command("grep")
@click.argument("pattern")
@click.option("--mode", type=click.Choice(["text", "regex"]), default="text", show_default=True)
@click.option(
    "--scope",
    type=click.Choice(["messages", "summaries", "both"]),
    default="both",
    show_default=True,
)
@click.option(
    "--sort", type=click.Choice(["recency", "relevance"]), default="recency", show_default=True
)
@click.option("-n", "--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@click.option("--all-sessions", is_flag=True, help="Search every conversation.")
@session_option
@json_option
@common_options
def grep_cmd(
    pattern: str,
    mode: str,
    scope: str,
    sort: str,
    limit: int,
    all_sessions: bool,
    session: str | None,
    as_json: bool,
) -> None:
    """Search a conversation's messages and summaries, as the lcm_grep tool does.

    \b
    Examples:
      memdir lcm grep "Postgres 16"
      memdir lcm grep 数据库 --scope messages --sort relevance
      memdir lcm grep 'OPS-\\d+' --mode regex --json
    """
    with _lcm() as store:
        data = store.grep(
            pattern,
            session=session,
            mode=mode,
            scope=scope,
            sort=sort,
            limit=limit,
            all_sessions=all_sessions,
        )
    if as_json:
        _emit_json(data)
        return
    if not data["results"]:
        click.echo("no match", err=True)
    for hit in data["results"]:
        where = (
            f"msg {hit['id']} ({hit['role']})"
            if hit["kind"] == "message"
            else (f"{hit['id']} (depth {hit['depth']})")
        )
        under = f" in {hit['summary']}" if hit.get("summary") else ""
        click.echo(f"{where}{under} {hit['created_at']}: {_shown(hit['snippet'])}")


@lcm.command("describe")
@click.argument("ref", metavar="ID")
@json_option
@common_options
def describe_cmd(ref: str, as_json: bool) -> None:
    """Describe a summary (sum_…) or a message (its number), as lcm_describe does."""
    with _lcm() as store:
        data = store.describe(ref)
    if as_json:
        _emit_json(data)
        return
    if data["kind"] == "message":
        click.echo(
            f"message {data['id']} of session {_shown(data['session'])}, seq {data['seq']}, "
            f"{data['role']}, {data['tokens']} tokens, {data['created_at']}; "
            + (f"covered by {data['summary']}" if data["summary"] else "raw in the context")
        )
        return
    children = ", ".join(str(c["id"]) for c in data["children"][:12])
    more = len(data["children"]) - 12
    click.echo(
        f"{data['id']}: depth {data['depth']}, {data['messages']} messages "
        f"(seq {data['first_seq']}–{data['last_seq']}), {data['earliest_at']} – "
        f"{data['latest_at']}, {data['tokens']} tokens for {data['source_tokens']}, made by "
        f"{data['made_by']} ({data['model']})"
    )
    click.echo(f"parent: {data['parent'] or 'none (top level)'}")
    click.echo(f"children: {children}{f' and {more} more' if more > 0 else ''}")
    click.echo("")
    click.echo(data["content"])


@lcm.command("expand")
@click.argument("ref", metavar="ID")
@click.option(
    "--max-tokens",
    type=click.IntRange(min=1),
    default=None,
    help="Most tokens of messages to print (a page; default: all of them).",
)
@click.option("--offset", type=click.IntRange(min=0), default=0, help="First message of the page.")
@json_option
@common_options
def expand_cmd(ref: str, max_tokens: int | None, offset: int, as_json: bool) -> None:
    """Print the exact original messages under a summary, as lcm_expand does."""
    with _lcm() as store:
        data = store.expand(ref, max_tokens=max_tokens, offset=offset)
    if as_json:
        _emit_json(data)
        return
    for message in data["messages"]:
        click.echo(f"--- msg {message['id']} · {message['role']} · {message['created_at']}")
        click.echo(message["content"])
    if data["next_offset"] is not None:
        click.echo(
            f"({data['total_messages'] - data['next_offset']} more messages: "
            f"--offset {data['next_offset']})",
            err=True,
        )


@lcm.command("compact")
@click.option("--force", is_flag=True, help="Compact even below context.trigger.")
@session_option
@json_option
@common_options
def compact_cmd(force: bool, session: str | None, as_json: bool) -> None:
    """Compact a conversation now (when it has reached context.trigger, or --force)."""
    with _lcm() as store:
        sid = store.resolve(session)
        result = store.working(sid).compact(force=force, lock_timeout=30.0)
    if as_json:
        _emit_json(result.to_dict())
        return
    _warn(result.warnings)
    click.echo(
        f"session {_shown(sid)}: {result.reason}, {len(result.summaries)} summaries, "
        f"{result.tokens_before} → {result.tokens_after} tokens"
    )
