"""``memdir install CLIENT``: register memdir with the agents people already run.

Each client gets the MCP server (``memdir serve -w <workspace>``, named ``memdir``) in the
file it reads; Claude Code also gets the capture hooks (``PreCompact`` and ``SessionEnd``
running ``memdir -w <workspace> hook claude-code``). User scope, or a project's files with
``project``:

============  ===========================================  ==========================================
client        user                                         project (``DIR``)
============  ===========================================  ==========================================
claude-code   ``~/.claude/settings.json`` (hooks),         ``DIR/.claude/settings.json`` (hooks),
              ``~/.claude.json`` (``mcpServers``)          ``DIR/.mcp.json`` (``mcpServers``)
codex         ``$CODEX_HOME/config.toml`` (default         ``DIR/.codex/config.toml``
              ``~/.codex``), ``[mcp_servers.memdir]``      (read in trusted projects)
cursor        ``~/.cursor/mcp.json`` (``mcpServers``)      ``DIR/.cursor/mcp.json``
gemini        ``~/.gemini/settings.json`` (``mcpServers``)  ``DIR/.gemini/settings.json``
============  ===========================================  ==========================================

Everything else in those files is kept as it is. An entry memdir wrote before (the
``memdir`` server, a hook whose command ends in ``hook claude-code``) is updated in place,
keeping the keys a user added to it; when nothing would change, the file is not touched, so
running twice changes nothing. A file that is changed is first copied to
``<name>.memdir-backup-<YYYYmmdd-HHMMSS>`` and then replaced atomically, its permissions kept.
A file memdir cannot read as JSON (or TOML) is refused, never overwritten.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memdir.errors import ConfigError, StorageError, UsageError

__all__ = [
    "CLIENTS",
    "HOOK_TIMEOUT_S",
    "FileChange",
    "apply_changes",
    "hook_command",
    "memdir_command",
    "plan_install",
]

CLIENTS = ("claude-code", "codex", "cursor", "gemini")
SERVER_NAME = "memdir"
HOOK_EVENTS = ("PreCompact", "SessionEnd")
HOOK_TIMEOUT_S = 100
"""The ``timeout`` (seconds) of the Claude Code hook entries: above ``memdir hook``'s own
90 s deadline, so memdir, not Claude Code, ends a slow run (and logs it)."""


@dataclass(frozen=True, slots=True)
class FileChange:
    """One configuration file: its text ``before`` (``None``: it does not exist) and
    ``after``; ``what`` memdir puts in it; ``backup``, once written, where the old one went."""

    path: Path
    before: str | None
    after: str
    what: str
    backup: Path | None = None
    written: bool = False

    @property
    def action(self) -> str:
        """``create``, ``update`` or ``unchanged``."""
        if self.before is None:
            return "create"
        return "unchanged" if self.before == self.after else "update"

    def diff(self) -> str:
        """The change as a unified diff ("" when unchanged)."""
        if self.action == "unchanged":
            return ""
        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(
            old, new, "/dev/null" if self.before is None else name, name, n=2
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "action": self.action,
            "what": self.what,
            "written": self.written,
            "backup": str(self.backup) if self.backup else None,
            "diff": self.diff(),
        }


# -- the commands written -------------------------------------------------------------------------
def memdir_command() -> list[str]:
    """How to start this memdir from another program: the ``memdir`` script running now, else
    the one on ``PATH``, else ``python -m memdir`` with this interpreter. Absolute paths, so
    a client with another ``PATH`` starts the same memdir."""
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name in ("memdir", "memdir.exe") and Path(argv0).is_file():
        return [os.path.abspath(argv0)]
    found = shutil.which("memdir")
    if found:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "memdir"]


def hook_command(memdir: Sequence[str], workspace: Path) -> str:
    """The shell command of the Claude Code hooks."""
    return shlex.join([*memdir, "-w", str(workspace), "hook", "claude-code"])


def _is_our_hook(command: object) -> bool:
    return isinstance(command, str) and command.rstrip().endswith(" hook claude-code")


def _server(memdir: Sequence[str], workspace: Path, *, typed: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if typed else {}
    entry["command"] = memdir[0]
    entry["args"] = [*memdir[1:], "serve", "-w", str(workspace)]
    return entry


# -- planning -----------------------------------------------------------------------------------
def plan_install(
    client: str,
    *,
    workspace: Path,
    project: Path | None = None,
    home: Path | None = None,
    memdir: Sequence[str] | None = None,
    env: dict[str, str] | None = None,
) -> list[FileChange]:
    """The changes installing into ``client`` makes (nothing is written): user scope, or
    ``project``'s files. ``home`` defaults to the user's home, ``memdir`` to
    :func:`memdir_command`, ``env`` to ``os.environ`` (for ``CODEX_HOME``)."""
    if client not in CLIENTS:
        raise UsageError(f"unknown client {client!r}; choose one of {', '.join(CLIENTS)}")
    home = home or Path.home()
    memdir = list(memdir or memdir_command())
    env = dict(os.environ if env is None else env)
    workspace = workspace.resolve()
    root = project.resolve() if project is not None else None
    if client == "claude-code":
        settings = (root or home) / ".claude" / "settings.json"
        mcp = root / ".mcp.json" if root else home / ".claude.json"
        command = hook_command(memdir, workspace)
        return [
            _json_change(
                settings,
                lambda data: _add_hooks(settings, data, command),
                "hooks PreCompact and SessionEnd",
            ),
            _json_change(
                mcp,
                lambda data: _add_server(mcp, data, _server(memdir, workspace, typed=True)),
                f"MCP server {SERVER_NAME}",
            ),
        ]
    if client == "codex":
        codex_home = Path(env["CODEX_HOME"]).expanduser() if env.get("CODEX_HOME") else None
        path = (root / ".codex" if root else codex_home or home / ".codex") / "config.toml"
        return [_toml_change(path, _server(memdir, workspace, typed=False))]
    folder = ".cursor" if client == "cursor" else ".gemini"
    path = (root or home) / folder / ("mcp.json" if client == "cursor" else "settings.json")
    server = _server(memdir, workspace, typed=False)
    return [
        _json_change(
            path, lambda data: _add_server(path, data, server), f"MCP server {SERVER_NAME}"
        )
    ]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read {path}: {exc}") from exc


def _json_change(path: Path, edit: Callable[[dict[str, Any]], None], what: str) -> FileChange:
    before = _read(path)
    try:
        data = json.loads(before) if before and before.strip() else {}
    except ValueError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); memdir will not overwrite it",
            hint="fix the file (or move it aside) and run the command again",
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} holds JSON {type(data).__name__}, not an object")
    edited = copy.deepcopy(data)
    edit(edited)
    if edited == data and before is not None:
        return FileChange(path, before, before, what)
    text = json.dumps(edited, indent=_indent_of(before), ensure_ascii=False) + "\n"
    return FileChange(path, before, text, what)


def _indent_of(text: str | None) -> int | str:
    """The indentation the file uses (its first indented line's), so that only the lines
    memdir changes show in the diff; 2 for a new file."""
    match = re.search(r"^([ \t]+)\S", text or "", re.MULTILINE)
    if match is None:
        return 2
    lead = match.group(1)
    return "\t" if "\t" in lead else len(lead)


def _table(path: Path, data: dict[str, Any], key: str, kind: type) -> Any:
    value = data.setdefault(key, kind())
    if not isinstance(value, kind):
        raise ConfigError(f"{path}: {key} is {type(value).__name__}, expected {kind.__name__}")
    return value


def _add_server(path: Path, data: dict[str, Any], server: dict[str, Any]) -> None:
    servers = _table(path, data, "mcpServers", dict)
    old = servers.get(SERVER_NAME)
    servers[SERVER_NAME] = {**old, **server} if isinstance(old, dict) else server


def _add_hooks(path: Path, data: dict[str, Any], command: str) -> None:
    hooks = _table(path, data, "hooks", dict)
    entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
    for event in HOOK_EVENTS:
        groups = _table(path, hooks, event, list)
        found = False
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                continue
            for i, hook in enumerate(inner):
                if isinstance(hook, dict) and _is_our_hook(hook.get("command")) and not found:
                    inner[i] = {**hook, **entry}
                    found = True
        if not found:
            groups.append({"hooks": [entry]})


# -- Codex's TOML -------------------------------------------------------------------------------
_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")


def _toml_key(header: str) -> list[str]:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', header)
    return [a or b or c for a, b, c in parts]


def _toml_change(path: Path, server: dict[str, Any]) -> FileChange:
    before = _read(path)
    text = before or ""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid TOML ({exc}); memdir will not overwrite it"
        ) from exc
    what = f"MCP server {SERVER_NAME}"
    servers = data.get("mcp_servers", {})
    old = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    merged = {**old, **server} if isinstance(old, dict) else server
    if old == merged and before is not None:
        return FileChange(path, before, before, what)
    extra = {k: v for k, v in merged.items() if k not in server}
    block = [f"[mcp_servers.{SERVER_NAME}]"]
    block += [f"{k} = {json.dumps(v, ensure_ascii=False)}" for k, v in server.items()]
    lines = text.splitlines()
    if old is not None:
        lines = _drop_table(path, lines)
    body = "\n".join(lines).rstrip("\n")
    after = (body + "\n\n" if body else "") + "\n".join(block) + "\n"
    if extra:  # keys the user added (env, timeouts…): keep them, as TOML
        after = _with_extra(path, after, extra)
    try:
        check = tomllib.loads(after).get("mcp_servers", {}).get(SERVER_NAME)
    except tomllib.TOMLDecodeError:
        check = None
    if not isinstance(check, dict) or any(check.get(k) != v for k, v in server.items()):
        raise ConfigError(f"{path}: could not update [mcp_servers.{SERVER_NAME}]; edit it by hand")
    return FileChange(path, before, after, what)


def _drop_table(path: Path, lines: list[str]) -> list[str]:
    """``lines`` without the ``[mcp_servers.memdir]`` table and its sub-tables."""
    out: list[str] = []
    inside = found = False
    for line in lines:
        match = _HEADER.match(line)
        if match and not line.lstrip().startswith("[["):
            key = _toml_key(match.group(1))
            inside = key[:2] == ["mcp_servers", SERVER_NAME]
            found = found or inside
        if not inside:
            out.append(line)
    if not found:
        raise ConfigError(
            f"{path} defines mcp_servers.{SERVER_NAME} other than as a [mcp_servers.{SERVER_NAME}] "
            "table; memdir will not rewrite it",
            hint="edit or remove that entry by hand and run the command again",
        )
    return out


def _with_extra(path: Path, text: str, extra: dict[str, Any]) -> str:
    plain = [f"{k} = {_toml_value(v)}" for k, v in extra.items()]
    return text.rstrip("\n") + "\n" + "\n".join(plain) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    raise ConfigError(f"cannot write {value!r} back as TOML")


# -- writing ------------------------------------------------------------------------------------
def apply_changes(
    changes: Sequence[FileChange], *, now: datetime | None = None
) -> list[FileChange]:
    """Write the changed files: a backup of each existing one first, then the new text
    atomically (permissions kept). Unchanged files are left alone."""
    stamp = f"{(now or datetime.now()):%Y%m%d-%H%M%S}"
    done: list[FileChange] = []
    for change in changes:
        if change.action == "unchanged":
            done.append(change)
            continue
        path = change.path
        backup = _backup(path, stamp) if change.before is not None else None
        _write_atomic(path, change.after)
        done.append(replace(change, backup=backup, written=True))
    return done


def _backup(path: Path, stamp: str) -> Path:
    for n in range(1, 100):
        suffix = "" if n == 1 else f"-{n}"
        target = path.with_name(f"{path.name}.memdir-backup-{stamp}{suffix}")
        try:
            with open(target, "xb") as out, open(path, "rb") as src:
                shutil.copyfileobj(src, out)
            shutil.copymode(path, target)
            return target
        except FileExistsError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot back up {path} to {target}: {exc.strerror}") from exc
    raise StorageError(
        f"cannot back up {path}: too many backups named {path.name}.memdir-backup-{stamp}*"
    )


def _write_atomic(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.memdir.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o7777 if path.exists() else None
        with open(temp, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise StorageError(f"cannot write {path}: {exc.strerror}") from exc
