"""Fuzzing the configuration: whatever the file, the variables or ``--set`` hold, loading gives a
valid :class:`Config` or a :class:`ConfigError`, never another exception (so the CLI prints one
``Error:`` line, never a traceback). Fixed seeds and a bounded number of cases: a few seconds.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from memdir.cli import _parse_sets
from memdir.config import SETTINGS, Config, env_var_for, load_config
from memdir.errors import ConfigError
from memdir.workspace import Workspace

KEYS = [s.key for s in SETTINGS]
KINDS = {s.key: s.kind for s in SETTINGS}

# Values that have broken or could break a parser: JSON-ish, path-ish, numeric edge cases.
TRICKY_TEXT = [
    "",
    " ",
    "0",
    "-1",
    "1e999",
    "nan",
    "inf",
    "-0.0",
    "9" * 5000,
    "true",
    "off",
    "maybe",
    "[",
    "[]",
    "[[]]",
    '["memory","sessions"]',
    '["notes"',
    "[1, 2]",
    "[true]",
    "[null]",
    "[" * 3000,
    "{",
    "{}",
    '{"alice": "group"}',
    '{"x": 1}',
    '{"ticket": "TICKET-\\\\d+"}',
    '{"bad": "("}',
    "memory,sessions",
    "memory:sessions",
    "a,,b",
    "/",
    ".",
    "..",
    "~",
    "~/x",
    "state/",
    "MEMORY.md",
    "\u0000",
    "a\u0000b",
    "\udc80",
    "Europe/Paris",
    "../../etc/passwd",
    "数据库",
    "local",
    "keyword",
    "main",
    "email,phone",
]


def _random_text(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(TRICKY_TEXT)
    alphabet = "ab01.,:;-_/[]{}\"'=\\ \n\t#~é数\u0000"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    """A Python value as TOML or an ``overrides=`` mapping could hold it."""
    roll = rng.randrange(10 if depth < 2 else 6)
    if roll == 0:
        return rng.choice([0, 1, -1, 8, 400, 2**63 - 1, 10**30, -(10**6)])
    if roll == 1:
        return rng.choice([0.0, 0.35, 1.5, -0.5, math.inf, -math.inf, math.nan, 1e308])
    if roll == 2:
        return rng.choice([True, False])
    if roll in (3, 4, 5):
        return _random_text(rng)
    if roll in (6, 7):
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {
        _random_text(rng) or "k": _random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))
    }


def _value_for(rng: random.Random, key: str) -> Any:
    """Half the time a value of the setting's own type, so that many cases get past the types."""
    kind = KINDS.get(key)
    if rng.random() < 0.5 or kind is None:
        return _random_value(rng)
    if kind is int:
        return rng.choice([0, 1, 4, 8, 20, 64, 80, 200, 201, 400, 1000, 60_001, 10**12])
    if kind is float:
        return rng.choice([0.0, 0.1, 0.35, 0.5, 1.0, 1.01, 30.0, math.inf, math.nan])
    if kind is bool:
        return rng.random() < 0.5
    if kind is list:
        return [_random_text(rng) for _ in range(rng.randint(0, 3))]
    if kind is dict:
        return {_random_text(rng) or "k": _random_text(rng) for _ in range(rng.randint(0, 2))}
    return _random_text(rng)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string, except for lone surrogates
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


def _random_key(rng: random.Random) -> str:
    key = rng.choice(KEYS)
    roll = rng.random()
    if roll < 0.08:
        return key[:-1]  # misspelt
    if roll < 0.12:
        return key + ".x"
    if roll < 0.14:
        return env_var_for(key)
    return key


def _random_toml(rng: random.Random) -> str:
    top, tables = [], {}
    for _ in range(rng.randint(1, 5)):
        key = _random_key(rng)
        value = _toml_value(_value_for(rng, key))
        head, _, name = key.rpartition(".")
        if head and rng.random() < 0.5:
            tables.setdefault(head, []).append(f"{name} = {value}")
        else:
            top.append(f"{key} = {value}")
    parts = top + [f"[{head}]\n" + "\n".join(lines) for head, lines in tables.items()]
    return "\n".join(parts) + "\n"


def _mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(chars) + 1)
        op = rng.randrange(3)
        if op == 0 and chars:
            del chars[min(at, len(chars) - 1)]
        elif op == 1:
            chars.insert(at, rng.choice("[]{}=\"'\n.,#\\ \u0000é"))
        else:
            chars[at:at] = chars[max(0, at - 8) : at]
    return "".join(chars)


def _load(ws: Path, **kwargs: Any) -> Config | None:
    """Load, asserting the outcome is a valid Config or a ConfigError."""
    try:
        cfg = load_config(ws, **kwargs)
    except ConfigError as exc:
        assert exc.message and exc.exit_code == 3
        return None
    for s in SETTINGS:
        value = cfg[s.key]
        assert isinstance(value, s.kind), (s.key, value)
        assert s.check is None or s.check(value) is None, (s.key, value)
    assert cfg["chunking.overlap"] * 2 <= cfg["chunking.tokens"]
    assert cfg.index_path.name
    Workspace(cfg).allowed_roots()  # every path setting can be resolved
    # What loaded is a valid configuration in its own right: feeding it back changes nothing.
    again = load_config(ws, env={}, overrides=dict(cfg.values))
    assert again.values == cfg.values
    return cfg


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".memdir").mkdir()
    return tmp_path


def _write_config(ws: Path, data: bytes) -> None:
    (ws / ".memdir" / "config.toml").write_bytes(data)


def test_random_bytes_as_the_config_file(ws: Path) -> None:
    rng = random.Random(901)
    prefix = b'[search]\nmode = "keyword"\n'
    for _ in range(150):
        data = rng.randbytes(rng.randint(0, 120))
        _write_config(ws, prefix + data if rng.random() < 0.5 else data)
        _load(ws, env={})


def test_random_and_malformed_toml(ws: Path) -> None:
    rng = random.Random(902)
    loaded = 0
    for i in range(400):
        text = _random_toml(rng)
        if i % 2:
            text = _mutate(rng, text)
        _write_config(ws, text.encode("utf-8", errors="surrogatepass"))
        loaded += _load(ws, env={}) is not None
    assert loaded  # some cases do load, so the checks above are exercised


def test_random_set_pairs(ws: Path) -> None:
    rng = random.Random(903)
    loaded = 0
    for _ in range(600):
        pairs = tuple(f"{_random_key(rng)}={_random_text(rng)}" for _ in range(rng.randint(1, 3)))
        loaded += _load(ws, env={}, overrides=_parse_sets(pairs)) is not None
    assert loaded


def test_random_overrides_of_any_type(ws: Path) -> None:
    rng = random.Random(904)
    for _ in range(400):
        keys = [_random_key(rng) for _ in range(rng.randint(1, 3))]
        overrides = {key: _value_for(rng, key) for key in keys}
        _load(ws, env={}, overrides=overrides)


def test_random_environment(ws: Path) -> None:
    rng = random.Random(905)
    loaded = 0
    for _ in range(600):
        env = {}
        for _ in range(rng.randint(1, 4)):
            name = env_var_for(_random_key(rng)) if rng.random() < 0.9 else "MEMDIR_" + "X" * 3
            env[name] = _random_text(rng).replace("\u0000", "")  # no NUL in a real environment
        loaded += _load(ws, env=env) is not None
    assert loaded
