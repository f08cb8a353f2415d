"""``memdir replay FILE`` (a recorded conversation through the capture pipeline, offline) and
``memdir chat`` (a terminal chat with the configured model and the memory tools).

They register on :data:`memdir.cli.cli`, which imports this module at its end. Replay wraps
:mod:`memdir.sessions.replay`; chat is :mod:`memdir.chat`'s loop.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memdir.cli import _emit_json, _shown, _warn, cli, common_options, err, json_option
from memdir.errors import UsageError

__all__: list[str] = []


@cli.command("replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--context-tokens",
    type=click.IntRange(min=64),
    default=None,
    help="The context window the replay pretends the model has, in tokens (default 2048): "
    "the flush is due at context − reserve − soft margin (768 for 2048).",
)
@click.option(
    "--conversation",
    "conversations",
    multiple=True,
    metavar="ID",
    help="LoCoMo only: replay this sample (its sample_id, or its 0-based index); repeatable. "
    "Default: all of them.",
)
@click.option(
    "--final-flush/--no-final-flush",
    default=True,
    show_default=True,
    help="Flush what came after the last flush when a session ends, before the hook "
    "(--no-final-flush: only what the context window triggers, as a live session).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@json_option
@common_options
def replay_cmd(
    file: Path,
    context_tokens: int | None,
    conversations: tuple[str, ...],
    final_flush: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Feed a recorded conversation through the same pipeline as a live session.

    FILE is an OpenClaw/memdir transcript (JSONL), a Claude Code transcript
    (~/.claude/projects/<project>/<session>.jsonl) or a LoCoMo conversation JSON (its
    session_1, session_2 … are sessions, dated by their session_<n>_date_time). Every message
    is added to a Session; the flush runs when should_flush says so against a small context
    window, writing memory/YYYY-MM-DD.md; at each session's end the session-memory hook writes
    memory/YYYY-MM-DD-<slug>.md. The dates are the conversation's, not today's. With no model
    configured (llm.*), the extractive fallback writes the notes: no network needed.

    \b
    Examples:
      memdir replay ~/.claude/projects/-home-me-app/0b6c….jsonl
      memdir replay locomo10.json --conversation conv-26 --json
    """
    from memdir.api import Memory
    from memdir.sessions.notes import user_zone
    from memdir.sessions.replay import DEFAULT_CONTEXT_TOKENS, ReplayReport, load_recording, replay

    config = click.get_current_context().meta["memdir.config"]()
    config.workspace.mkdir(parents=True, exist_ok=True)  # a new workspace for the replay is fine
    memory = Memory(config=config)
    try:
        zone, _ = user_zone(memory.config)
        fmt, sessions = load_recording(file, zone=zone)
        if conversations:
            names = list(dict.fromkeys(s.conversation for s in sessions))
            chosen = set()
            for wanted in conversations:
                if wanted in names:
                    chosen.add(wanted)
                elif wanted.isdigit() and int(wanted) < len(names):
                    chosen.add(names[int(wanted)])
                else:
                    raise UsageError(
                        f"no conversation {wanted!r} in {file}",
                        hint=f"known: {', '.join(n for n in names if n)[:300] or 'none'}",
                    )
            sessions = [s for s in sessions if s.conversation in chosen]
        report = ReplayReport(str(file), fmt)
        window = context_tokens or DEFAULT_CONTEXT_TOKENS
        total = sum(len(s.messages) for s in sessions)
        if quiet or as_json or not err.is_terminal:
            replay(memory, sessions, context_tokens=window, final_flush=final_flush, report=report)
        else:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            with Progress(
                TextColumn("replaying messages"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err.get(),
                transient=True,
            ) as bar:
                task = bar.add_task("replay", total=total)
                replay(
                    memory,
                    sessions,
                    context_tokens=window,
                    final_flush=final_flush,
                    report=report,
                    progress=lambda done, _total: bar.update(task, completed=done),
                )
    finally:
        memory.close()
    if as_json:
        _emit_json({**report.to_dict(), "context_tokens": window})
        return
    _warn(dict.fromkeys(report.warnings))
    if report.fallback:
        _warn(["no chat model configured (llm.*): the extractive fallback wrote the notes"])
    for item in report.written:
        lines = (
            f"{item.start_line}-{item.end_line}"
            if item.end_line > item.start_line
            else str(item.start_line)
        )
        click.echo(f"{item.kind:<15} {_shown(item.path)}:{lines}  ({_shown(item.session)})")
    files = {w.path for w in report.written}
    click.echo(
        f"replayed {report.messages} message(s) in {report.sessions} session(s) ({fmt}): "
        f"{report.flushes} flush(es), {len(files)} file(s) written",
        err=True,
    )


@cli.command("chat")
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    help="Resume this session (its transcript in sessions.dir) instead of starting one.",
)
@click.option(
    "--context-tokens",
    type=click.IntRange(min=64),
    default=None,
    help="The model's context window in tokens, for the flush and the lossless context "
    "(default: flush.context_window and context.window_tokens).",
)
@common_options
def chat_cmd(session_id: str | None, context_tokens: int | None) -> None:
    """Chat with the configured model (llm.*), which can use the memory tools.

    The model may call memory_search, memory_get and memory_write (OpenAI tools, Anthropic
    tool_use), and lcm_grep, lcm_describe and lcm_expand over this conversation. The
    conversation is recorded in sessions/<session-id>.jsonl and in the lossless context store
    (.memdir/lcm.sqlite); when the context reaches context.trigger, the durable facts are
    flushed to memory/YYYY-MM-DD.md and the oldest messages are compacted into summaries
    (nothing is lost: the model can grep and expand them). Commands: /new or /reset end the session (its last
    messages become memory/YYYY-MM-DD-<slug>.md) and start another; /quit (or end of input)
    leaves. Needs a model: with none configured it exits 2 (memdir replay is the offline path).
    """
    from memdir.chat import run_chat

    opener = click.get_current_context().meta["memdir.open"]
    config = click.get_current_context().meta["memdir.config"]()
    if config["llm.provider"] in ("", "none", "extractive"):
        raise UsageError(
            "memdir chat needs a chat model, and none is configured (llm.provider)",
            hint="set llm.provider and llm.model (e.g. --set llm.provider=openai --set "
            "llm.model=gpt-4o-mini), or use `memdir replay FILE` to capture offline",
        )
    memory = opener()
    try:
        code = run_chat(
            memory,
            session_id=session_id,
            context_tokens=context_tokens,
            read=_read_line,
            write=lambda text: click.echo(text),
            note=lambda text: click.echo(text, err=True),
        )
    finally:
        memory.close()
    click.get_current_context().exit(code)


def _read_line(prompt: str) -> str | None:
    """One line from the user; ``None`` at the end of input."""
    if sys.stdin.isatty():
        try:
            return input(prompt)
        except EOFError:
            return None
    line = sys.stdin.readline()
    return None if not line else line.rstrip("\n")
