"""The ``context.*`` settings and token accounting."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.config import load_config
from memdir.context.compaction import ContextSettings
from memdir.context.tokens import MESSAGE_OVERHEAD, TokenCounter, estimate_tokens
from memdir.errors import ConfigError


def test_defaults_are_the_issues(tmp_path: Path) -> None:
    settings = ContextSettings.from_config(load_config(tmp_path))
    assert settings == ContextSettings()
    assert (settings.trigger, settings.fresh_messages, settings.leaf_tokens) == (0.75, 64, 20_000)
    assert (settings.leaf_fanout, settings.condensed_fanout) == (8, 4)
    assert settings.trigger_tokens == 150_000
    assert settings.target(0) == 1200 and settings.target(2) == 2000
    small = ContextSettings(window_tokens=4096)
    assert small.target(0) == 384 and small.target(1) == 768  # an eighth, a quarter of 3072


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("context.trigger", "1.5"),
        ("context.trigger", "0"),
        ("context.window_tokens", "100"),
        ("context.leaf_fanout", "1"),
        ("context.timeout_s", "0"),
        ("context.max_calls", "-1"),
        ("context.fresh_messages", "many"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(tmp_path, overrides={key: value})


def test_the_environment_sets_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDIR_CONTEXT_WINDOW_TOKENS", "8192")
    config = load_config(tmp_path, overrides={"context.trigger": "0.5"})
    assert ContextSettings.from_config(config).trigger_tokens == 4096


def test_token_counts() -> None:
    estimate = TokenCounter(prefer_tiktoken=False)
    assert estimate.name == "estimate"
    assert estimate.count("") == 0 and estimate.count("abcd") == 1
    assert estimate.count("数据库迁移") == 5  # one CJK character, one token
    assert estimate.message("abcd") == 1 + MESSAGE_OVERHEAD
    assert estimate_tokens("abcdefgh") == 2
    counter = TokenCounter()  # tiktoken when it is installed and loads, else the same estimate
    assert counter.name in ("estimate", "tiktoken/cl100k_base")
    assert counter.count("hello world") >= 2
