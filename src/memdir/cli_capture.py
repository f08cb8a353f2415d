"""Capture commands: ``memdir hook claude-code`` and ``memdir install CLIENT``.

They register on :data:`memdir.cli.cli`, which imports this module at its end. The hook is a
thin wrapper over :mod:`memdir.sessions.claude_code`, the installer over :mod:`memdir.install`.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from memdir.cli import _emit_json, _shown, _warn, cli, common_options, json_option
from memdir.config import STATE_DIRNAME
from memdir.errors import MemdirError, WorkspaceError

if TYPE_CHECKING:
    from memdir.llm.chat import ChatModel
    from memdir.sessions.claude_code import HookOutcome

__all__: list[str] = []

HOOK_TIMEOUT_S = 90.0
"""How long ``memdir hook`` may take in all before it gives up (and logs that it did)."""
LOG_NAME = "hooks.log"
LOG_MAX_BYTES = 1024 * 1024
"""Past this size the log is moved to ``hooks.log.1`` (replacing an older one) and restarted."""


class _HookLog:
    """The hook's log: ``<workspace>/.memdir/hooks.log`` when the workspace has a ``.memdir``
    folder, else ``hooks.log`` in memdir's user cache folder. Writing it never raises."""

    def __init__(self, workspace: Path) -> None:
        state = workspace / STATE_DIRNAME
        if state.is_dir():
            self.path = state / LOG_NAME
        else:
            from memdir.cachedir import cache_root

            self.path = cache_root() / LOG_NAME
        self.context = "claude-code"

    def write(self, level: str, message: str) -> None:
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = f"{stamp} {level} {self.context}: {message}".rstrip("\n") + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                if self.path.stat().st_size > LOG_MAX_BYTES:
                    os.replace(self.path, self.path.with_name(LOG_NAME + ".1"))
            except FileNotFoundError:
                pass
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(line)
        except OSError:
            pass


class _LogHandler(logging.Handler):
    """memdir's own warnings during a hook run (a model falling back, say) into the log."""

    def __init__(self, log: _HookLog) -> None:
        super().__init__(logging.WARNING)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        self.log.write(record.levelname, f"{record.name}: {record.getMessage()}")


@cli.group()
def hook() -> None:
    """Run memdir from an agent's hooks (what `memdir install` registers).

    A hook never fails the agent: whatever goes wrong is written to a log
    (<workspace>/.memdir/hooks.log, else hooks.log in memdir's cache folder) and the
    command exits 0.
    """


@hook.command("claude-code")
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=1),
    default=HOOK_TIMEOUT_S,
    show_default=True,
    help="Give up after this many seconds in all (the model call itself is bounded by "
    "llm.timeout_s).",
)
@json_option
@common_options
def hook_claude_code(timeout_s: float, as_json: bool) -> None:
    """Claude Code's PreCompact and SessionEnd hook: reads the hook's JSON from stdin.

    PreCompact saves the durable facts of the conversation since the last flush to
    memory/YYYY-MM-DD.md (with no model configured, through the extractive fallback);
    SessionEnd turns the last messages into memory/YYYY-MM-DD-<slug>.md. Other events are
    ignored. Always exits 0; errors go to the log.

    \b
    In .claude/settings.json (memdir install claude-code writes this):
      "PreCompact": [{"hooks": [{"type": "command",
                                 "command": "memdir -w ~/notes hook claude-code"}]}]
    """
    ctx = click.get_current_context()
    load_config = ctx.meta["memdir.config"]
    log = _HookLog(Path(ctx.meta["memdir.workspace"]).expanduser())
    handler = _LogHandler(log)
    logging.getLogger("memdir").addHandler(handler)
    done: dict[str, Any] = {}

    def work() -> None:
        try:
            done["outcome"] = _run_hook(load_config, log)
        except BaseException as exc:  # a hook must never fail the agent
            done["error"] = exc
            done["trace"] = traceback.format_exc()

    started = time.monotonic()
    worker = threading.Thread(target=work, name="memdir-hook", daemon=True)
    worker.start()
    worker.join(timeout_s)
    logging.getLogger("memdir").removeHandler(handler)
    if worker.is_alive():
        log.write("ERROR", f"gave up after {timeout_s:g} s; the run was abandoned")
        click.echo(f"memdir: hook gave up after {timeout_s:g} s (see {log.path})", err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # the worker may be stuck in a call; the agent must not wait for it
    seconds = time.monotonic() - started
    error = done.get("error")
    if error is not None:
        if isinstance(error, MemdirError):
            hint = f" (hint: {error.hint})" if error.hint else ""
            log.write("ERROR", f"{error.message}{hint}")
        else:
            log.write("ERROR", f"{type(error).__name__}: {error}\n{done.get('trace', '')}")
        click.echo(f"memdir: hook failed, see {log.path}", err=True)
        if as_json:
            _emit_json({"ok": False, "error": str(error), "log": str(log.path)})
        return
    outcome: HookOutcome = done["outcome"]
    log.write("INFO", f"{outcome.summary()} ({seconds:.2f} s)")
    for warning in outcome.warnings:
        log.write("WARNING", warning)
    if as_json:
        _emit_json({"ok": True, **outcome.to_dict(), "seconds": round(seconds, 3)})
        return
    _warn(outcome.warnings)
    click.echo(f"memdir: {_shown(outcome.summary())}")


def _run_hook(load_config: Callable[..., Any], log: _HookLog) -> HookOutcome:
    from memdir.sessions.claude_code import MAX_INPUT_BYTES, HookInput, run_claude_code_hook

    raw = (
        b""
        if sys.stdin is None or sys.stdin.isatty()
        else sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    )
    config = load_config()
    if not config.workspace.is_dir():
        raise WorkspaceError(
            f"workspace {config.workspace} is not a folder",
            hint="point the hook at your workspace with -w DIR or MEMDIR_WORKSPACE",
        )
    log.path = _HookLog(config.workspace).path
    payload = HookInput.parse(raw)
    log.context = f"claude-code {payload.event} session={payload.session_id}"
    model: list[ChatModel] = []

    def get_model() -> ChatModel:
        if not model:
            from memdir.llm.providers import create_chat_model

            model.append(create_chat_model(config))
        return model[0]

    try:
        return run_claude_code_hook(config, payload, model=get_model)
    finally:
        for made in model:
            made.close()


@cli.command("install")
@click.argument("client", type=click.Choice(["claude-code", "codex", "cursor", "gemini"]))
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the project's files in DIR (.claude/settings.json and .mcp.json, .codex/, "
    ".cursor/, .gemini/) instead of the user's.",
)
@click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")
@json_option
@common_options
def install_cmd(client: str, project: Path | None, dry_run: bool, as_json: bool) -> None:
    """Register memdir with an agent: the MCP server (memdir serve) and, for Claude Code, the
    capture hooks (memdir hook claude-code on PreCompact and SessionEnd).

    The commands written name this workspace (-w, $MEMDIR_WORKSPACE, else the current
    directory) and this memdir, by absolute paths. Shows the change as a diff and backs up
    each file it changes (<file>.memdir-backup-<time>); a second run changes nothing.

    \b
    Files (user scope; --project DIR for the project's):
      claude-code  ~/.claude/settings.json, ~/.claude.json   (DIR/.claude/settings.json, DIR/.mcp.json)
      codex        ~/.codex/config.toml ($CODEX_HOME)        (DIR/.codex/config.toml)
      cursor       ~/.cursor/mcp.json                        (DIR/.cursor/mcp.json)
      gemini       ~/.gemini/settings.json                   (DIR/.gemini/settings.json)

    \b
    Examples:
      memdir install claude-code -w ~/notes --dry-run
      memdir install cursor --project . -w ~/notes
    """
    from memdir.install import apply_changes, plan_install

    config = click.get_current_context().meta["memdir.config"]()
    if not config.workspace.is_dir():
        raise WorkspaceError(
            f"workspace {config.workspace} is not a folder",
            hint="run `memdir init -w DIR` first, or point at your workspace with -w DIR",
        )
    if project is not None and not project.is_dir():
        raise WorkspaceError(f"project folder {project} does not exist")
    changes = plan_install(client, workspace=config.workspace, project=project)
    if not dry_run:
        changes = apply_changes(changes)
    if as_json:
        _emit_json(
            {
                "client": client,
                "scope": "project" if project is not None else "user",
                "workspace": str(config.workspace),
                "dry_run": dry_run,
                "changed": any(c.action != "unchanged" for c in changes),
                "files": [c.to_dict() for c in changes],
            }
        )
        return
    for change in changes:
        path = _shown(str(change.path))
        if change.action == "unchanged":
            click.echo(f"unchanged {path}: {change.what} already there")
            continue
        verb = {"create": "create", "update": "update"}[change.action]
        if dry_run:
            click.echo(f"would {verb} {path}: {change.what}")
        else:
            done = "created" if verb == "create" else "updated"
            backup = f" (backup: {_shown(str(change.backup))})" if change.backup else ""
            click.echo(f"{done} {path}: {change.what}{backup}")
        click.echo(change.diff(), nl=False)
    if dry_run and any(c.action != "unchanged" for c in changes):
        click.echo("dry run: nothing written", err=True)
