"""Fuzzing files, transcripts and queries (issue #9): sync and search never raise.

Random Markdown files (any Unicode, NUL bytes, huge lines, CRLF, invalid UTF-8, a BOM) and
random JSONL transcripts (valid messages, odd shapes, NaN and huge timestamps, deep nesting,
truncated lines, JSON escapes of NUL and lone surrogates) are synced, edited and synced again;
every chunk must lie within its file's lines, and random queries (FTS5 syntax, emoji, lone
surrogates, 10,000 characters) must search without raising. The seed is fixed and the number
of cases bounded, so a failure replays exactly and the test takes a few seconds.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from memdir import Memory
from memdir.chunking import split_lines
from memdir.errors import UsageError
from memdir.workspace import decode_text

pytestmark = pytest.mark.usefixtures("no_embedder")

SEED = 20261201
ROUNDS = 4
QUERIES_PER_ROUND = 50

_WORDS = ["heron", "deploy", "Tuesday", "PostgreSQL", "İstanbul", "замо́к", "数据库", "東京"]
_WORDS += ["كتاب", "bot🤖", "café", "naïve", "straße", "\u2068Zoë\u2069", "AND", "NEAR", "OR"]
_SYNTAX = ['"', "*", "NEAR(", ")", "-", ":", "^", "(", "{", "}", "+", "'", "\\", "`", "#"]


def _char(rng: random.Random) -> str:
    """One code point from anywhere in Unicode except the surrogates, weighted to the BMP."""
    while True:
        cp = rng.randrange(0x110000) if rng.random() < 0.3 else rng.randrange(0x10000)
        if not 0xD800 <= cp <= 0xDFFF:
            return chr(cp)


def _phrase(rng: random.Random, n: int) -> str:
    parts: list[str] = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.5:
            parts.append(rng.choice(_WORDS))
        elif roll < 0.8:
            parts.append("".join(_char(rng) for _ in range(rng.randint(1, 8))))
        else:
            parts.append(rng.choice(_SYNTAX))
    return " ".join(parts)


def _markdown(rng: random.Random) -> bytes:
    """Random Markdown bytes: lines of any Unicode, NULs, huge lines, CRLF, invalid UTF-8."""
    out = [b"\xef\xbb\xbf"] if rng.random() < 0.1 else []
    for _ in range(rng.randint(0, 40)):
        roll = rng.random()
        if roll < 0.05:
            line = b"x" * rng.randint(2_000, 20_000)  # a line longer than a chunk
        elif roll < 0.1:
            line = rng.choice(["数据", "é", "🤖"]).encode() * rng.randint(500, 3_000)
        elif roll < 0.15:
            line = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))  # bad bytes
        elif roll < 0.18:
            line = b"before\x00after"
        else:
            line = (rng.choice(["", "# ", "- ", "> "]) + _phrase(rng, rng.randint(0, 12))).encode(
                "utf-8"
            )
        out.append(line + rng.choice([b"\n", b"\n", b"\r\n", b"\r", b"\n\n"]))
    if out and rng.random() < 0.5:
        out[-1] = out[-1].rstrip(b"\r\n")  # no final newline
    return b"".join(out)


def _timestamp(rng: random.Random) -> str:
    return rng.choice(
        [
            "1700000000",
            "1700000000123",
            "1e400",
            "-1e400",
            "NaN",
            "Infinity",
            "1" + "0" * 400,
            "true",
            "null",
            '"2026-01-02T03:04:05Z"',
            '"garbage"',
            '"0001-01-01"',
            '"9999-12-31T23:59:59+14:00"',
            "[]",
            "{}",
            "-5",
        ]
    )


def _content(rng: random.Random) -> str:
    text = json.dumps(_phrase(rng, rng.randint(0, 10)))
    return rng.choice(
        [
            text,
            f'[{{"type": "text", "text": {text}}}, {{"type": "image"}}]',
            '"a\\u0000b \\ud800 c\\udfff"',
            "42",
            "null",
            '{"text": "a dict"}',
            '[1, null, {"type": "text", "text": 5}]',
        ]
    )


def _transcript(rng: random.Random) -> bytes:
    lines: list[str] = []
    for _ in range(rng.randint(0, 30)):
        roll = rng.random()
        role = rng.choice(['"user"', '"assistant"', '"system"', "null", '["user"]'])
        record = (
            f'{{"type": "message", "timestamp": {_timestamp(rng)}, '
            f'"message": {{"role": {role}, "content": {_content(rng)}}}}}'
        )
        if roll < 0.6:
            lines.append(record)
        elif roll < 0.7:
            lines.append(record[: rng.randrange(len(record))])  # truncated
        elif roll < 0.75:
            depth = rng.choice([10, 5_000, 200_000])
            lines.append("[" * depth + "]" * depth)
        elif roll < 0.8:
            lines.append(record.replace("message", "mess\x00age", 1))
        elif roll < 0.9:
            lines.append(rng.choice(['{"type": "session"}', "null", "[]", '"x"', "", "   "]))
        else:
            lines.append(_phrase(rng, 5))
    data = rng.choice(["\n", "\r\n"]).join(lines).encode("utf-8")
    if rng.random() < 0.2:
        data += bytes(rng.randrange(256) for _ in range(20))
    return data


def _query(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.1:
        return _phrase(rng, 2_000)[:10_000]
    if roll < 0.2:
        return "heron\ud800 \udfff" + _phrase(rng, 2)
    if roll < 0.25:
        return rng.choice(["", "   ", "\n\t", "\u3000"])
    return _phrase(rng, rng.randint(1, 8))


def _check_chunks(m: Memory, root: Path) -> int:
    """Every chunk lies within its file's lines; Markdown chunk text comes from those lines."""
    rows = m.index.read("SELECT path, source, start_line, end_line, text FROM chunks")
    for path, source, start, end, text in rows:
        data = (root / path).read_bytes()
        if source == "sessions":
            count = len(data.split(b"\n"))
            assert 1 <= start <= end <= count, (path, start, end, count)
            continue
        lines = split_lines(decode_text(data)[0])
        assert 1 <= start <= end <= len(lines), (path, start, end, len(lines))
        assert text in "\n".join(lines[start - 1 : end]), (path, start, end)
    return len(rows)


def test_fuzz_sync_and_search_never_raise(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "sessions").mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\nheron notes\n", encoding="utf-8")
    chunks = 0
    with Memory(root, overrides={"sources": ["memory", "sessions"]}) as m:
        for round_ in range(ROUNDS):
            for i in range(12):
                if rng.random() < 0.7:  # edit most files, keep some, across rounds
                    (root / "memory" / f"f{i}.md").write_bytes(_markdown(rng))
            for i in range(5):
                if rng.random() < 0.7:
                    (root / "sessions" / f"s{i}.jsonl").write_bytes(_transcript(rng))
            if round_ and rng.random() < 0.5:
                (root / "memory" / f"f{rng.randrange(12)}.md").unlink(missing_ok=True)
            report = m.sync()
            assert report.files_total >= 1
            chunks += _check_chunks(m, root)
            for _ in range(QUERIES_PER_ROUND):
                query = _query(rng)
                try:
                    response = m.search(query, mode="keyword", min_score=0.0, refresh=False)
                except UsageError:
                    assert not query.strip(), repr(query[:80])
                    continue
                response.to_dict()
                json.dumps(response.to_dict(), ensure_ascii=False).encode("utf-8")
                for hit in response.results:
                    assert 1 <= hit.start_line <= hit.end_line, hit
    assert chunks > 50  # the fuzz reached the index, not only the skip paths
