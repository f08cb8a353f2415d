"""Configuration: precedence, validation errors, list parsing, ``~`` and extra-path de-duplication."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memdir import Memory
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
