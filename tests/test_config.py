"""Configuration: precedence, validation errors, list parsing, ``~`` and extra-path de-duplication."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir import Memory
from memdir.cli import cli
from memdir.config import SETTINGS, env_var_for, load_config
from memdir.errors import ConfigError
from memdir.workspace import Workspace


def _config_file(ws: Path, text: str) -> Path:
    path = ws / ".memdir" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_nothing_is_set(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, env={})
    assert cfg.file is None
    assert cfg["search.max_results"] == 6
    assert cfg["search.min_score"] == 0.35
    assert cfg.to_dict()["search.max_results"] == {"value": 6, "source": "default"}
    assert cfg.index_path == tmp_path.resolve() / ".memdir" / "index.sqlite"


def test_precedence_file_then_env_then_overrides(tmp_path: Path) -> None:
    path = _config_file(
        tmp_path,
        "[search]\nmax_results = 3\nmin_score = 0.1\nsnippet_chars = 50\n",
    )
    env = {"MEMDIR_SEARCH_MIN_SCORE": "0.2", "MEMDIR_SEARCH_SNIPPET_CHARS": "60"}
    cfg = load_config(tmp_path, env=env, overrides={"search.snippet_chars": "70"})
    assert cfg.file == path
    assert (cfg["search.max_results"], cfg.origins["search.max_results"]) == (3, str(path))
    assert (cfg["search.min_score"], cfg.origins["search.min_score"]) == (
        0.2,
        "MEMDIR_SEARCH_MIN_SCORE",
    )
    assert (cfg["search.snippet_chars"], cfg.origins["search.snippet_chars"]) == (70, "overrides")
    assert cfg.to_dict()["search.mode"]["source"] == "default"


def test_os_environ_is_read_when_no_env_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMDIR_SEARCH_MAX_RESULTS", "9")
    cfg = load_config(tmp_path)
    assert cfg["search.max_results"] == 9
    assert cfg.origins["search.max_results"] == "MEMDIR_SEARCH_MAX_RESULTS"


def test_explicit_config_file_replaces_the_workspace_one(tmp_path: Path) -> None:
    _config_file(tmp_path, "[search]\nmax_results = 3\n")
    other = tmp_path / "elsewhere.toml"
    other.write_text("[search]\nmax_results = 11\n", encoding="utf-8")
    cfg = load_config(tmp_path, config_file=other, env={})
    assert cfg["search.max_results"] == 11
    assert cfg.file == other


def test_missing_explicit_config_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml") as info:
        load_config(tmp_path, config_file=tmp_path / "nope.toml", env={})
    assert info.value.exit_code == 3


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    path = _config_file(tmp_path, "[search\nmax_results = 3\n")
    with pytest.raises(ConfigError, match="not valid TOML") as info:
        load_config(tmp_path, env={})
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("key", "raw", "shown", "expected"),
    [
        ("search.min_score", "1.5", "1.5", "must be between"),
        ("search.min_score", "abc", "'abc'", "could not convert"),
        ("search.max_results", "0", "= 0", "must be between"),
        ("search.max_results", "2.5", "'2.5'", "invalid literal"),
        ("search.mode", "fuzzy", "'fuzzy'", "must be one of"),
        ("search.mmr.enabled", "maybe", "'maybe'", "true or false"),
        ("chunking.tokens", "4", "= 4", "must be >= 8"),
        ("chunking.strategy", "headings", "'headings'", "must be one of structure, window"),
        ("sources", "memory,chat", "'chat'", "unknown source"),
        ("citations", "sometimes", "'sometimes'", "must be one of"),
        ("embedding.runtime", "torch", "'torch'", "must be one of"),
        ("embedding.threads", "-2", "-2", "must be between"),
    ],
)
def test_bad_override_names_key_value_and_origin(
    key: str, raw: str, shown: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(".", env={}, overrides={key: raw})
    message = str(info.value)
    assert message.startswith(f"{key} ")
    assert shown in message
    assert expected in message
    assert "from overrides" in message
    assert info.value.exit_code == 3


def test_bad_env_value_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={"MEMDIR_SEARCH_MAX_RESULTS": "lots"})
    message = str(info.value)
    assert "search.max_results" in message
    assert "'lots'" in message
    assert "MEMDIR_SEARCH_MAX_RESULTS" in message


def test_bad_file_value_names_the_file(tmp_path: Path) -> None:
    path = _config_file(tmp_path, '[search]\nmax_results = "six"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    message = str(info.value)
    assert "search.max_results" in message
    assert "'six'" in message
    assert str(path) in message


def test_wrong_toml_type_is_rejected(tmp_path: Path) -> None:
    _config_file(tmp_path, "[search]\nmin_score = true\n")
    with pytest.raises(ConfigError, match=r"search\.min_score = True"):
        load_config(tmp_path, env={})


def test_unknown_key_in_file_is_rejected(tmp_path: Path) -> None:
    path = _config_file(tmp_path, "[search]\nmax_resluts = 3\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert "search.max_resluts" in str(info.value)
    assert str(path) in str(info.value)


def test_unknown_override_is_rejected_even_in_env_spelling() -> None:
    with pytest.raises(ConfigError, match=r"unknown setting 'search\.colour'"):
        load_config(".", env={}, overrides={"search.colour": "red"})
    with pytest.raises(ConfigError, match="MEMDIR_SEARCH_MIN_SCORE"):
        load_config(".", env={}, overrides={"MEMDIR_SEARCH_MIN_SCORE": "0.2"})


def test_unrelated_memdir_env_vars_are_not_settings(tmp_path: Path) -> None:
    # MEMDIR_WORKSPACE / MEMDIR_DEBUG / MEMDIR_HOME are read elsewhere; they must not break loading.
    cfg = load_config(
        tmp_path, env={"MEMDIR_WORKSPACE": "x", "MEMDIR_DEBUG": "1", "MEMDIR_HOME": "y"}
    )
    assert all(source == "default" for source in (v["source"] for v in cfg.to_dict().values()))


def test_every_setting_has_an_env_var_and_a_valid_default(tmp_path: Path) -> None:
    names = [env_var_for(s.key) for s in SETTINGS]
    assert len(set(names)) == len(names)
    assert env_var_for("search.mmr.lambda") == "MEMDIR_SEARCH_MMR_LAMBDA"
    cfg = load_config(tmp_path, env={}, overrides={s.key: s.default for s in SETTINGS})
    assert all(cfg[s.key] == s.default for s in SETTINGS)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("memory,sessions", ["memory", "sessions"]),
        (" memory , sessions ", ["memory", "sessions"]),
        ("memory,,", ["memory"]),
        (f"memory{os.pathsep}sessions", ["memory", "sessions"]),
    ],
)
def test_list_parsing_from_text(raw: str, expected: list[str]) -> None:
    assert load_config(".", env={"MEMDIR_SOURCES": raw})["sources"] == expected


def test_list_from_toml_is_trimmed_and_blanks_dropped(tmp_path: Path) -> None:
    _config_file(tmp_path, 'extra_paths = [" notes ", "", "docs"]\n')
    assert load_config(tmp_path, env={})["extra_paths"] == ["notes", "docs"]


def test_path_list_with_colon_separator_keeps_whole_paths() -> None:
    cfg = load_config(".", env={"MEMDIR_EXTRA_PATHS": f"/a/b{os.pathsep}c/d"})
    assert cfg["extra_paths"] == ["/a/b", "c/d"]


def test_tilde_is_expanded_in_extra_paths_and_sessions_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Upstream #58027: "~/notes" in extraPaths was taken literally. memdir expands it.
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "n.md").write_text("tilde-expanded wombat\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    ws = tmp_path / "ws"
    ws.mkdir()
    cfg = load_config(
        ws,
        env={},
        overrides={
            "extra_paths": ["~/notes"],
            "sessions.dir": "~/sessions",
            "embedding.provider": "none",
        },
    )
    assert cfg.path_list("extra_paths") == [home / "notes"]
    assert cfg.path("sessions.dir") == home / "sessions"
    with Memory(ws, config=cfg) as mem:
        hits = mem.search("wombat", min_score=0.0)
    assert [h.path for h in hits] == ["../home/notes/n.md"]


def test_tilde_workspace_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "mem").mkdir()
    assert load_config("~/mem", env={}).workspace == (tmp_path / "mem").resolve()


def test_case_86_extra_paths_merge_keeps_first_occurrence(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    shared = str(tmp_path / "shared" / "notes")
    cfg = load_config(
        ws,
        env={},
        overrides={"extra_paths": [shared, " docs ", shared, "../team-notes", "docs/"]},
    )
    root = ws.resolve()
    assert list(Workspace(cfg).extra_paths) == [Path(shared), root / "docs", root / "../team-notes"]


def test_same_extra_folder_given_two_ways_is_indexed_once(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "a.md").write_text("platypus\n", encoding="utf-8")
    overrides = {
        "extra_paths": ["notes", str(ws / "notes"), "../ws/notes"],
        "embedding.provider": "none",
    }
    with Memory(ws, overrides=overrides) as mem:
        report = mem.sync()
        hits = mem.search("platypus", min_score=0.0)
    assert report.files_total == 1
    assert [h.path for h in hits] == ["notes/a.md"]


# -- list and table text in env/--set (issue #9, item 7) ------------------------------------------


@pytest.mark.parametrize(
    ("key", "raw", "expected"),
    [
        ("extra_paths", '["notes"]', ["notes"]),
        ("extra_paths", ' [ "a,b", "c:d" ] ', ["a,b", "c:d"]),
        ("sources", '["memory","sessions"]', ["memory", "sessions"]),
        ("embedding.cosine_range", "[0.2, 0.9]", ["0.2", "0.9"]),
        ("redact.disable", "[]", []),
    ],
)
def test_a_json_list_is_read_as_a_list(key: str, raw: str, expected: list[str]) -> None:
    assert load_config(".", env={}, overrides={key: raw})[key] == expected
    assert load_config(".", env={env_var_for(key): raw})[key] == expected


def test_config_output_can_be_fed_back_to_set(tmp_path: Path) -> None:
    """What `memdir config --json` prints for a list or table is what --set accepts."""
    wanted = {
        "sources": ["memory", "sessions"],
        "extra_paths": ["notes", "team docs"],
        "tools.agent_scopes": {"support-bot": "group"},
    }
    first = load_config(tmp_path, env={}, overrides=wanted)
    printed = {k: json.dumps(first.to_dict()[k]["value"]) for k in wanted}
    again = load_config(tmp_path, env={}, overrides=printed)
    assert {k: again[k] for k in wanted} == wanted


@pytest.mark.parametrize(
    ("key", "raw", "fragment"),
    [
        ("extra_paths", '["notes"', "expected a JSON list"),
        ("extra_paths", "[notes]", "expected a JSON list"),
        ("sources", '["memory", ["sessions"]]', "list items must be text"),
        ("extra_paths", "[true]", "list items must be text"),
        ("extra_paths", "[" * 100_000, "nested too deeply"),
        ("tools.agent_scopes", '["alice"]', "expected a JSON object, got a list"),
        ("redact.patterns", "{ticket: x}", "expected a JSON object"),
        ("extra_paths", '["a\\u0000b"]', "must not contain a NUL character"),
        ("tools.agent_scopes", '{"a\\u0000": "main"}', "must not contain a NUL character"),
    ],
)
def test_bad_json_names_the_key_and_the_source(key: str, raw: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(".", env={}, overrides={key: raw})
    assert str(info.value).startswith(f"{key} = ")
    assert "from overrides" in str(info.value) and fragment in str(info.value)
    with pytest.raises(ConfigError, match=env_var_for(key)):
        load_config(".", env={env_var_for(key): raw})


def test_a_table_is_a_dict_whatever_its_source(tmp_path: Path) -> None:
    _config_file(tmp_path, '[tools.agent_scopes]\nalice = "group"\n')
    from_file = load_config(tmp_path, env={})["tools.agent_scopes"]
    from_env = load_config(".", env={"MEMDIR_TOOLS_AGENT_SCOPES": '{"alice": "group"}'})[
        "tools.agent_scopes"
    ]
    assert from_file == from_env == {"alice": "group"}
    assert load_config(".", env={"MEMDIR_REDACT_PATTERNS": " "})["redact.patterns"] == {}


# -- errors that used to be tracebacks (issue #9, item 8) -----------------------------------------


def test_config_file_with_invalid_utf8_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / ".memdir" / "config.toml"
    path.parent.mkdir()
    path.write_bytes(b'[search]\nmode = "keyword"\ncitations = "\xff"\n')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert str(info.value).startswith(f"config file {path} is not valid UTF-8")
    assert "line 3" in str(info.value)


def test_config_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / ".memdir" / "config.toml"
    path.parent.mkdir()
    path.write_bytes(b"\xef\xbb\xbf[search]\nmax_results = 3\n")
    assert load_config(tmp_path, env={})["search.max_results"] == 3


def test_config_file_that_is_a_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path, config_file=tmp_path, env={})


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("/", "must name a file (e.g. .memdir/index.sqlite), not a folder"),
        ("", "not be empty"),
        (".", "not a folder"),
        ("state/", "not a folder"),
        ("state/..", "not a folder"),
        ("existing", "is a folder; name a file in it, e.g. existing/index.sqlite"),
        ("MEMORY.md", "must not be a Markdown file"),
        ("plain/index.sqlite", "its folder cannot be created"),
    ],
)
def test_index_path_must_name_a_file_that_can_be_created(
    tmp_path: Path, raw: str, fragment: str
) -> None:
    (tmp_path / "existing").mkdir()
    (tmp_path / "plain").write_text("a file, not a folder\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={}, overrides={"index.path": raw})
    message = str(info.value)
    assert message.startswith(f"index.path = {raw!r} from overrides: ")
    assert fragment in message
    assert info.value.exit_code == 3


def test_index_path_in_a_folder_still_to_be_made_is_fine(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, env={}, overrides={"index.path": "new/deeper/idx.sqlite"})
    assert cfg.index_path == tmp_path.resolve() / "new" / "deeper" / "idx.sqlite"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--set", "index.path=/"], "index.path = '/' from overrides"),
        (["--set", "extra_paths=[notes"], "extra_paths = '[notes' from overrides"),
        (["--set", "chunking.tokens=100"], "chunking.overlap = 80 from default"),
    ],
)
def test_cli_prints_one_error_line_for_bad_settings(
    tmp_path: Path, args: list[str], fragment: str
) -> None:
    result = CliRunner().invoke(cli, ["config", "-w", str(tmp_path), *args])
    assert result.exit_code == 3, result.output
    assert result.stderr.startswith(f"Error: {fragment}")
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_cli_prints_one_error_line_for_a_config_file_in_another_encoding(tmp_path: Path) -> None:
    path = tmp_path / ".memdir" / "config.toml"
    path.parent.mkdir()
    path.write_bytes('timezone = "Europe/Zürich"\n'.encode("latin-1"))
    result = CliRunner().invoke(cli, ["status", "-w", str(tmp_path)])
    assert result.exit_code == 3
    assert result.stderr.startswith(f"Error: config file {path} is not valid UTF-8")
    assert "Traceback" not in result.stderr


# -- chunking.overlap (issue #9, item 10) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "overlap", "ok"),
    [(400, 80, True), (400, 200, True), (400, 201, False), (64, 80, False), (8, 4, True)],
)
def test_overlap_is_at_most_half_the_chunk(tokens: int, overlap: int, ok: bool) -> None:
    overrides = {"chunking.tokens": tokens, "chunking.overlap": overlap}
    if ok:
        assert load_config(".", env={}, overrides=overrides)["chunking.overlap"] == overlap
        return
    with pytest.raises(ConfigError) as info:
        load_config(".", env={}, overrides=overrides)
    assert str(info.value).startswith(f"chunking.overlap = {overlap} from overrides: ")
    assert f"at most half of chunking.tokens = {tokens}" in str(info.value)


def test_overlap_error_names_where_each_value_came_from(tmp_path: Path) -> None:
    path = _config_file(tmp_path, "[chunking]\noverlap = 150\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={"MEMDIR_CHUNKING_TOKENS": "200"})
    assert str(info.value).startswith(f"chunking.overlap = 150 from {path}: ")
    assert "(from MEMDIR_CHUNKING_TOKENS)" in str(info.value)


def test_non_finite_numbers_are_refused() -> None:
    for raw in ("inf", "nan", "1e999"):
        with pytest.raises(ConfigError, match="finite"):
            load_config(".", env={}, overrides={"embedding.timeout_s": raw})


# -- unknown names (issue #9, item 10) -------------------------------------------------------------


def test_misspelled_env_var_is_a_warning_naming_the_setting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    env = {"MEMDIR_SEARCH_MIN_SCOR": "0.1", "MEMDIR_EMBEDING_PROVIDER": "none"}
    with caplog.at_level(logging.WARNING, logger="memdir.config"):
        cfg = load_config(tmp_path, env=env)
    assert cfg.warnings == (
        "environment variable MEMDIR_EMBEDING_PROVIDER is not a memdir setting and is ignored;"
        " did you mean MEMDIR_EMBEDDING_PROVIDER (embedding.provider)?",
        "environment variable MEMDIR_SEARCH_MIN_SCOR is not a memdir setting and is ignored;"
        " did you mean MEMDIR_SEARCH_MIN_SCORE (search.min_score)?",
    )
    assert [r.getMessage() for r in caplog.records] == list(cfg.warnings)
    assert cfg["search.min_score"] == 0.35


def test_env_var_in_the_wrong_case_or_far_from_any_setting_warns(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, env={"memdir_search_mode": "keyword", "MEMDIR_XYZZY": "1"})
    assert cfg.warnings == (
        "environment variable MEMDIR_XYZZY is not a memdir setting and is ignored",
        "environment variable memdir_search_mode is not a memdir setting and is ignored;"
        " did you mean MEMDIR_SEARCH_MODE (search.mode)?",
    )


def test_memdir_variables_read_elsewhere_do_not_warn(tmp_path: Path) -> None:
    names = [
        name
        for text in (_repo_text("src"), _repo_text(".ci"), _repo_text("bench"))
        for name in re.findall(r"\bMEMDIR_[A-Z0-9_]*[A-Z0-9]\b", text)
    ]
    settings = {env_var_for(s.key) for s in SETTINGS}
    others = sorted(set(names) - settings)
    assert {"MEMDIR_WORKSPACE", "MEMDIR_DEBUG", "MEMDIR_TOKEN", "MEMDIR_AGENT"} <= set(others)
    assert load_config(tmp_path, env=dict.fromkeys(others, "1")).warnings == ()


def _repo_text(folder: str) -> str:
    """The text of ``folder``'s files, leaving out hidden folders inside it: a benchmark's
    cache (``bench/.cache``: generated workspaces, a 3 GB index) is no code that reads a
    variable, and reading it ran a developer's test run out of memory."""
    root = Path(__file__).resolve().parent.parent / folder
    files = sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)


def test_cli_shows_config_warnings_on_stderr(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["config", "--json", "-w", str(tmp_path)], env={"MEMDIR_SEARCH_MOD": "keyword"}
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["search.mode"]["value"] == "hybrid"
    assert "warning: environment variable MEMDIR_SEARCH_MOD is not a memdir setting" in (
        result.stderr.replace("\n", " ")
    )
    assert "MEMDIR_SEARCH_MODE (search.mode)" in result.stderr.replace("\n", "")


def test_verbose_cli_shows_a_config_warning_once(tmp_path: Path) -> None:
    env = {**os.environ, "MEMDIR_SEARCH_MOD": "keyword"}
    result = subprocess.run(
        [sys.executable, "-m", "memdir", "config", "-v", "-w", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("MEMDIR_SEARCH_MOD is not a memdir setting") == 1, result.stderr


def test_unknown_key_in_file_hints_at_the_closest_setting(tmp_path: Path) -> None:
    _config_file(tmp_path, "[search]\nmax_resluts = 3\n")
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={})
    assert info.value.hint == "did you mean search.max_results? `memdir config` lists the settings"
    with pytest.raises(ConfigError) as info:
        load_config(".", env={}, overrides={"MEMDIR_SEARCH_MODE": "keyword"})
    assert info.value.hint == "use the setting's name, search.mode"
