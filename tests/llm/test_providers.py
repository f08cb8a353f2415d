"""The llm.* settings and create_chat_model: which client a configuration gives, the fallback
and its reason, the key read from the variable the configuration names."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from embed.fakes import FakeServer
from memdir.config import load_config
from memdir.errors import ConfigError
from memdir.llm import AnthropicChat, ExtractiveSummarizer, OpenAIChat, create_chat_model

from .conftest import TEST_KEY, anthropic_answer, openai_answer


def _config(tmp_path: Path, **overrides: object):  # type: ignore[no-untyped-def]
    return load_config(tmp_path, env={}, overrides={f"llm.{k}": v for k, v in overrides.items()})


def test_no_provider_gives_the_fallback_saying_so(tmp_path: Path) -> None:
    model = create_chat_model(_config(tmp_path), env={"OPENAI_API_KEY": TEST_KEY})
    assert isinstance(model, ExtractiveSummarizer)
    assert model.reason == "no model configured (llm.provider = none)"


@pytest.mark.parametrize(
    ("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_an_unset_or_empty_key_falls_back_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, provider: str, variable: str
) -> None:
    with caplog.at_level(logging.WARNING, logger="memdir.llm"):
        unset = create_chat_model(_config(tmp_path, provider=provider), env={})
    assert isinstance(unset, ExtractiveSummarizer)
    assert f"{variable} is not set" in unset.reason and "llm.api_key_env" in unset.reason
    assert any("extractive fallback" in r.getMessage() for r in caplog.records)
    empty = create_chat_model(_config(tmp_path, provider=provider), env={variable: "  "})
    assert isinstance(empty, ExtractiveSummarizer) and f"{variable} is empty" in empty.reason


def test_the_providers_defaults(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": TEST_KEY, "ANTHROPIC_API_KEY": TEST_KEY}
    with create_chat_model(
        _config(tmp_path, provider="openai", timeout_s=5, max_retries=1), env=env
    ) as oa:
        assert isinstance(oa, OpenAIChat)
        assert (oa.model, oa.base_url) == ("gpt-4o-mini", "https://api.openai.com/v1")
        assert oa.endpoint.url == "https://api.openai.com/v1/chat/completions"
        assert (oa.timeout_s, oa.retry.max_retries) == (5.0, 1)
    with create_chat_model(_config(tmp_path, provider="anthropic"), env=env) as an:
        assert isinstance(an, AnthropicChat)
        assert (an.model, an.endpoint.url) == (
            "claude-haiku-4-5",
            "https://api.anthropic.com/v1/messages",
        )
        assert TEST_KEY not in repr(an)


def test_the_key_comes_from_the_variable_the_config_names(
    tmp_path: Path, server: FakeServer
) -> None:
    config = _config(
        tmp_path, provider="anthropic", base_url=server.url, api_key_env="TEAM_CLAUDE_KEY"
    )
    env = {"TEAM_CLAUDE_KEY": "sk-ant-team-0001", "ANTHROPIC_API_KEY": "sk-ant-wrong"}
    server.script(anthropic_answer())
    with create_chat_model(config, env=env) as model:
        assert model.complete([{"role": "user", "content": "hi"}]).text == "Hello."
    assert server.requests[0].headers["x-api-key"] == "sk-ant-team-0001"
    named_but_unset = create_chat_model(config, env={"ANTHROPIC_API_KEY": "sk-ant-wrong"})
    assert isinstance(named_but_unset, ExtractiveSummarizer)
    assert "TEAM_CLAUDE_KEY is not set" in named_but_unset.reason


def test_a_local_openai_compatible_server_needs_no_key(tmp_path: Path, server: FakeServer) -> None:
    config = _config(tmp_path, provider="openai", base_url=server.url + "/v1", model="llama3.2")
    server.script(openai_answer("local"), openai_answer("keyed"))
    with create_chat_model(config, env={}) as model:
        assert isinstance(model, OpenAIChat)
        assert model.complete([{"role": "user", "content": "hi"}]).text == "local"
    with create_chat_model(config, env={"OPENAI_API_KEY": TEST_KEY}) as keyed:
        keyed.complete([{"role": "user", "content": "hi"}])
    assert "authorization" not in server.requests[0].headers
    assert server.requests[1].headers["authorization"] == f"Bearer {TEST_KEY}"
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2
    assert server.requests[0].body["model"] == "llama3.2"  # type: ignore[index]
    named = _config(
        tmp_path, provider="openai", base_url=server.url, model="m", api_key_env="VLLM_KEY"
    )
    assert isinstance(create_chat_model(named, env={}), ExtractiveSummarizer)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"provider": "gemini"}, "must be one of none, openai, anthropic"),
        ({"base_url": "127.0.0.1:11434/v1"}, "http:// or https:// URL"),
        ({"base_url": "https://"}, "http:// or https:// URL"),
        ({"timeout_s": 0}, "must be >= 0.1"),
        ({"max_retries": 11}, "must be between 0 and 10"),
        ({"api_key_env": "MY KEY"}, "NAME of an environment variable"),
        (
            {"provider": "openai", "base_url": "http://127.0.0.1:11434/v1"},
            "llm.model is empty",
        ),
    ],
)
def test_bad_llm_settings_are_config_errors(
    tmp_path: Path, overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        _config(tmp_path, **overrides)


@pytest.mark.parametrize(
    "secret", ["sk-proj-Abc123def456ghi789jkl", "sk_live_abcdef1234567890abcd"]
)
def test_a_key_pasted_as_api_key_env_is_refused_without_echoing_it(
    tmp_path: Path, secret: str
) -> None:
    (tmp_path / ".memdir").mkdir()
    (tmp_path / ".memdir" / "config.toml").write_text(f'[llm]\napi_key_env = "{secret}"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, env={})
    assert secret not in str(caught.value)
    assert f"<{len(secret)} characters, not shown>" in str(caught.value)
    assert "config.toml" in str(caught.value)


def test_llm_settings_come_from_the_environment_too(tmp_path: Path) -> None:
    config = load_config(
        tmp_path,
        env={"MEMDIR_LLM_PROVIDER": "anthropic", "MEMDIR_LLM_TIMEOUT_S": "12.5"},
    )
    assert config["llm.provider"] == "anthropic" and config["llm.timeout_s"] == 12.5
    assert config.origins["llm.provider"] == "MEMDIR_LLM_PROVIDER"


def test_the_llm_package_sits_low_in_the_flow() -> None:
    """memdir.llm uses config, errors and text only, and its types load no httpx."""
    probe = (
        "import sys\n"
        "import memdir.llm.chat, memdir.llm.extractive\n"
        "print('httpx' in sys.modules)\n"
        "import memdir.llm.providers\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('memdir.'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    light, loaded = proc.stdout.split("\n", 1)
    assert light == "False"
    modules = set(loaded.split())
    assert "memdir.llm.clients" in modules
    forbidden = ("memdir.search", "memdir.tools", "memdir.api", "memdir.cli", "memdir.mcp")
    assert not {m for m in modules if m.startswith(forbidden)}
    assert not {m for m in modules if m.startswith(("memdir.index", "memdir.embed"))}
