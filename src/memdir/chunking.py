"""Split memory text into overlapping chunks with exact 1-based line ranges.

The algorithm follows OpenClaw's ``chunkMarkdown`` (spec §2): lines are packed into a chunk
until it would exceed ``tokens × 4`` weighted characters (a CJK character weighs 4, so a chunk of
Chinese holds about as many tokens as one of English); the next chunk starts with the last whole
lines worth at least ``overlap × 4`` characters of the previous one. A line longer than a chunk is
cut into pieces that keep its line number.

Two upstream flaws are fixed here: a chunk made only of carried-over overlap lines is never
emitted (upstream emits a near-duplicate chunk whenever a long line follows the overlap), and the
pieces of one long line are re-joined without inventing newlines that the file does not have.

Session transcripts (JSONL) are flattened to one ``User: …`` / ``Assistant: …`` line per message
with a map back to JSONL line numbers, so citations point into the transcript itself.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from memdir.text import replace_surrogates, weighted_length

__all__ = ["Chunk", "SessionText", "chunk_text", "flatten_session", "sha256_hex", "split_lines"]


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a file: ``text`` spans lines ``start_line``..``end_line`` (1-based, inclusive)."""

    start_line: int
    end_line: int
    text: str
    hash: str


def split_lines(text: str) -> list[str]:
    """Lines without terminators. ``\\r\\n`` is one line break, and the newline that ends
    the last line does not start another: ``"a\\n"`` is one line, as editors number it."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _segments(line: str, max_chars: int, tokens: int) -> list[str]:
    """A line cut so that no piece is longer than a chunk; CJK-heavy slices are cut finer."""
    if not line:
        return [""]
    pieces: list[str] = []
    for start in range(0, len(line), max_chars):
        coarse = line[start : start + max_chars]
        if weighted_length(coarse) > max_chars:
            step = max(1, tokens)
            pieces.extend(coarse[i : i + step] for i in range(0, len(coarse), step))
        else:
            pieces.append(coarse)
    return pieces


def _join(segments: list[tuple[str, int]]) -> str:
    """Join segments, with a newline only where the line number changes."""
    out: list[str] = []
    previous = None
    for text, line_no in segments:
        if previous is not None and line_no != previous:
            out.append("\n")
        out.append(text)
        previous = line_no
    return "".join(out)


def chunk_text(text: str, *, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    """Chunk ``text``; chunks whose text is only whitespace are dropped."""
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    chunks: list[Chunk] = []
    current: list[tuple[str, int]] = []
    sizes: list[int] = []
    carried = 0  # how many leading segments of `current` came from the previous chunk

    def flush() -> None:
        body = _join(current)
        if body.strip():
            chunks.append(Chunk(current[0][1], current[-1][1], body, sha256_hex(body)))

    def carry_overlap() -> int:
        if overlap_chars == 0:
            current.clear()
            sizes.clear()
            return 0
        total, keep = 0, 0
        for size in reversed(sizes):
            total += size
            keep += 1
            if total >= overlap_chars:
                break
        del current[: len(current) - keep]
        del sizes[: len(sizes) - keep]
        return keep

    total = 0  # == sum(sizes), kept up to date instead of re-summed for every line
    for line_no, line in enumerate(split_lines(text), start=1):
        for segment in _segments(line, max_chars, tokens):
            size = weighted_length(segment) + 1
            if current and total + size > max_chars:
                if len(current) > carried:
                    flush()
                    carried = carry_overlap()
                    total = sum(sizes)
                while current and total + size > max_chars:
                    current.pop(0)
                    total -= sizes.pop(0)
                    carried -= 1
                carried = max(carried, 0)
            current.append((segment, line_no))
            sizes.append(size)
            total += size
    if current and len(current) > carried:
        flush()
    return chunks


@dataclass(frozen=True, slots=True)
class SessionText:
    """A transcript flattened to one line per message; ``line_map[i]`` is the JSONL line of line i+1."""

    text: str
    line_map: tuple[int, ...]
    timestamps_ms: tuple[int, ...]
    bad_lines: tuple[int, ...] = ()
    """JSONL lines (1-based) that are not valid JSON, and so were skipped."""

    def remap(self, chunk: Chunk) -> Chunk:
        """Map a chunk's line range from flattened lines to JSONL line numbers."""

        def at(n: int) -> int:
            return self.line_map[n - 1] if 0 < n <= len(self.line_map) else n

        return Chunk(at(chunk.start_line), at(chunk.end_line), chunk.text, chunk.hash)


_WS = re.compile(r"\s+")
_MAX_MS = 2**63 - 1  # a signed 64-bit integer, as SQLite stores it
_INVALID = object()


def _message_text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [
            _WS.sub(" ", block["text"]).strip()
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
        return " ".join(p for p in parts if p)
    return ""


def _timestamp_ms(value: object) -> int:
    """Milliseconds since the epoch (numbers below 1e11 are seconds, strings ISO 8601), or 0
    for anything else: a bool, a non-finite or out-of-range number, an unparseable string."""
    ms: float | int
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return 0
        ms = value * 1000 if value < 1e11 else value
    elif isinstance(value, str):
        try:
            ms = datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
        except (ValueError, OverflowError, OSError):
            return 0
    else:
        return 0
    return int(ms) if -_MAX_MS <= ms <= _MAX_MS else 0


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _record(line: str) -> object:
    """The JSON value of one transcript line, or ``_INVALID`` if it is not valid JSON.

    As in JavaScript's ``JSON.parse``: ``NaN`` and ``Infinity`` are refused, and so are raw
    control characters (a NUL byte) inside strings. Nesting too deep to parse counts as invalid.
    """
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return _INVALID


def flatten_session(raw: str, *, redact: Callable[[str], str] | None = None) -> SessionText:
    """Flatten an OpenClaw-style JSONL transcript (spec §1.5).

    Only ``{"type": "message"}`` records from ``user`` or ``assistant`` are kept; blank lines
    are skipped, and so are lines that are not valid JSON, which are listed in ``bad_lines``.
    Text blocks have their whitespace collapsed so each message is exactly one line, which
    ``redact`` (e.g. :meth:`memdir.redact.Redactor.redact`) then masks secrets in, as upstream
    redacts transcripts before indexing them.
    """
    lines: list[str] = []
    line_map: list[int] = []
    stamps: list[int] = []
    bad: list[int] = []
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        record = _record(line)
        if record is _INVALID:
            bad.append(number)
            continue
        if not isinstance(record, dict) or record.get("type") != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        text = _WS.sub(" ", _message_text(message.get("content"))).strip()
        if not text:
            continue
        label = "User" if message["role"] == "user" else "Assistant"
        text = replace_surrogates(text)
        lines.append(f"{label}: {redact(text) if redact else text}")
        line_map.append(number)
        stamps.append(_timestamp_ms(message.get("timestamp", record.get("timestamp"))))
    return SessionText("\n".join(lines), tuple(line_map), tuple(stamps), tuple(bad))
