"""``memdir install CLIENT``: the right entries in each client's files, unrelated settings
kept, a backup of what was changed, and a second run that changes nothing."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tomllib
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir.cli import cli

CLAUDE_SETTINGS = {
    "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
    "env": {"FOO": "bar"},
    "hooks": {
        "PreCompact": [
            {"matcher": "manual", "hooks": [{"type": "command", "command": "./backup.sh"}]}
        ]
    },
}
CLAUDE_JSON = {
    "numStartups": 12,
    "projects": {"/home/me/x": {"allowedTools": []}},
    "mcpServers": {"github": {"type": "stdio", "command": "npx", "args": ["gh-mcp"], "env": {}}},
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "memory").mkdir(parents=True)
    (root / ".memdir").mkdir()
    return root


def install(ws: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["install", *args, "-w", str(ws)], catch_exceptions=False)
    return result


def _json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _backups(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if ".memdir-backup-" in p.name)


def _snapshot(*paths: Path) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}


def _ours(command: str, ws: Path) -> bool:
    return shlex.split(command)[-4:] == ["-w", str(ws.resolve()), "hook", "claude-code"]


def _serve_args(entry: dict[str, object], ws: Path) -> Sequence[object]:
    args = entry["args"]
    assert isinstance(args, list)
    return args[-3:]


def test_claude_code_user_install_adds_hooks_and_server_keeping_the_rest(
    home: Path, ws: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(CLAUDE_SETTINGS, indent=4), encoding="utf-8")
    config = home / ".claude.json"
    config.write_text(json.dumps(CLAUDE_JSON, indent=2), encoding="utf-8")
    os.chmod(config, 0o600)
    originals = {settings: settings.read_text("utf-8"), config: config.read_text("utf-8")}

    result = install(ws, "claude-code")
    assert result.exit_code == 0, result.output
    assert f"updated {settings}" in result.output and f"updated {config}" in result.output
    assert '+        "SessionEnd": [' in result.output  # the diff, in the file's own indent
    assert '-    "permissions"' not in result.output  # unchanged lines are not rewritten

    data = _json(settings)
    assert data["permissions"] == CLAUDE_SETTINGS["permissions"] and data["env"] == {"FOO": "bar"}
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    pre = hooks["PreCompact"]
    assert pre[0] == CLAUDE_SETTINGS["hooks"]["PreCompact"][0]  # the user's hook is kept
    [ours] = pre[1]["hooks"]
    assert ours["type"] == "command" and ours["timeout"] == 100 and _ours(ours["command"], ws)
    [end] = hooks["SessionEnd"]
    assert end["hooks"] == [ours]

    mcp = _json(config)
    assert mcp["numStartups"] == 12 and mcp["projects"] == CLAUDE_JSON["projects"]
    servers = mcp["mcpServers"]
    assert isinstance(servers, dict) and servers["github"] == CLAUDE_JSON["mcpServers"]["github"]
    memdir = servers["memdir"]
    assert memdir["type"] == "stdio" and _serve_args(memdir, ws) == [
        "serve",
        "-w",
        str(ws.resolve()),
    ]
    assert config.stat().st_mode & 0o777 == 0o600  # permissions kept

    for path, before in originals.items():
        [backup] = _backups(path.parent)
        assert backup.name.startswith(path.name + ".memdir-backup-")
        assert backup.read_text("utf-8") == before

    # A second run changes nothing: no write, no new backup.
    snap = _snapshot(settings, config)
    again = install(ws, "claude-code", "--json")
    out = json.loads(again.output)
    assert out["changed"] is False and [f["action"] for f in out["files"]] == ["unchanged"] * 2
    assert _snapshot(settings, config) == snap
    assert len(_backups(settings.parent)) == 1 and len(_backups(home)) == 1


def test_claude_code_project_install_writes_the_project_files_only(
    home: Path, ws: Path, tmp_path: Path
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    result = install(ws, "claude-code", "--project", str(project), "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["scope"] == "project" and [f["action"] for f in out["files"]] == ["create"] * 2
    assert all(f["backup"] is None for f in out["files"])  # nothing existed to back up
    hooks = _json(project / ".claude" / "settings.json")["hooks"]
    assert isinstance(hooks, dict) and set(hooks) == {"PreCompact", "SessionEnd"}
    servers = _json(project / ".mcp.json")["mcpServers"]
    assert isinstance(servers, dict) and list(servers) == ["memdir"]
    assert list(home.iterdir()) == []  # the user's files are not touched


def test_the_installed_hook_command_runs(home: Path, ws: Path, tmp_path: Path) -> None:
    """The command written into settings.json, run by a shell as Claude Code runs it."""
    assert install(ws, "claude-code").exit_code == 0
    hooks = _json(home / ".claude" / "settings.json")["hooks"]
    assert isinstance(hooks, dict)
    command = hooks["PreCompact"][0]["hooks"][0]["command"]
    transcript = tmp_path / "s.jsonl"
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s1",
        "timestamp": "2026-02-16T15:00:00.000Z",
        "message": {"role": "user", "content": "We chose PostgreSQL 16 for billing on 2026-02-16."},
    }
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    payload = {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "PreCompact",
        "trigger": "auto",
    }
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MEMDIR_EMBEDDING_PROVIDER": "none"},
    )
    assert proc.returncode == 0 and "flush: wrote" in proc.stdout, proc.stderr
    [daily] = [p for p in (ws / "memory").glob("*.md")]
    assert "PostgreSQL 16" in daily.read_text(encoding="utf-8")


def test_dry_run_shows_the_diff_and_writes_nothing(home: Path, ws: Path) -> None:
    result = install(ws, "cursor", "--dry-run")
    assert result.exit_code == 0, result.output
    path = home / ".cursor" / "mcp.json"
    assert f"would create {path}" in result.output and '+    "memdir": {' in result.output
    assert not path.exists()


def test_an_older_memdir_entry_is_updated_in_place(home: Path, ws: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = "/old/venv/bin/memdir -w /old/notes hook claude-code"
    settings.write_text(
        json.dumps(
            {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": old, "x": 1}]}]}}
        ),
        encoding="utf-8",
    )
    assert install(ws, "claude-code").exit_code == 0
    hooks = _json(settings)["hooks"]
    assert isinstance(hooks, dict)
    [group] = hooks["SessionEnd"]
    [entry] = group["hooks"]
    assert _ours(entry["command"], ws) and entry["x"] == 1  # a user's extra key survives


def test_codex_toml_keeps_the_rest_and_is_idempotent(home: Path, ws: Path) -> None:
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(
        '# my codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\n'
        'args = ["-y", "other"]\n\n[mcp_servers.memdir]\ncommand = "/old/memdir"\n'
        'args = ["serve"]\n\n[mcp_servers.memdir.env]\nMEMDIR_AGENT = "codex"\n\n'
        '[profiles.fast]\nmodel = "o4-mini"\n',
        encoding="utf-8",
    )
    result = install(ws, "codex")
    assert result.exit_code == 0, result.output
    text = path.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert text.startswith("# my codex settings\n") and data["model"] == "o3"
    assert data["mcp_servers"]["other"] == {"command": "npx", "args": ["-y", "other"]}
    assert data["profiles"] == {"fast": {"model": "o4-mini"}}
    memdir = data["mcp_servers"]["memdir"]
    assert memdir["args"][-3:] == ["serve", "-w", str(ws.resolve())]
    assert memdir["env"] == {"MEMDIR_AGENT": "codex"}  # the user's env is kept
    assert len(_backups(path.parent)) == 1
    snap = _snapshot(path)
    assert "unchanged" in install(ws, "codex").output
    assert _snapshot(path) == snap


def test_codex_home_and_project(
    home: Path, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    assert install(ws, "codex").exit_code == 0
    assert "memdir" in tomllib.loads((codex_home / "config.toml").read_text("utf-8"))["mcp_servers"]
    project = tmp_path / "repo"
    project.mkdir()
    assert install(ws, "codex", "--project", str(project)).exit_code == 0
    assert (project / ".codex" / "config.toml").is_file()


@pytest.mark.parametrize(
    ("client", "rel"), [("cursor", ".cursor/mcp.json"), ("gemini", ".gemini/settings.json")]
)
def test_json_clients_get_the_server(home: Path, ws: Path, client: str, rel: str) -> None:
    path = home / rel
    path.parent.mkdir()
    path.write_text(json.dumps({"theme": "Dracula", "mcpServers": {"git": {"command": "uvx"}}}))
    assert install(ws, client).exit_code == 0
    data = _json(path)
    assert data["theme"] == "Dracula"
    servers = data["mcpServers"]
    assert isinstance(servers, dict) and servers["git"] == {"command": "uvx"}
    assert "type" not in servers["memdir"]
    assert _serve_args(servers["memdir"], ws) == ["serve", "-w", str(ws.resolve())]
    assert len(_backups(path.parent)) == 1
    snap = _snapshot(path)
    assert install(ws, client).exit_code == 0 and _snapshot(path) == snap


def test_a_file_that_is_not_json_is_refused_untouched(home: Path, ws: Path) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"theme": "Dracula", // a comment\n}', encoding="utf-8")
    result = CliRunner().invoke(cli, ["install", "gemini", "-w", str(ws)])
    assert result.exit_code == 3 and "is not valid JSON" in result.output
    assert path.read_text(encoding="utf-8") == '{"theme": "Dracula", // a comment\n}'
    assert _backups(path.parent) == []


def test_a_missing_workspace_is_refused(home: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["install", "cursor", "-w", str(tmp_path / "none")])
    assert result.exit_code == 4 and "memdir init" in result.output
    assert list(home.iterdir()) == []
