"""Chunking conformance (spec §2, §15 cases 69–70) and the fixes to upstream's quirks."""

from __future__ import annotations

import itertools
import json

from memdir.chunking import chunk_text, flatten_session
from memdir.text import weighted_length


def _cjk_count(text: str) -> int:
    return sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")


def test_case_69_long_ascii_line_splits_within_max_chars() -> None:
    chunks = chunk_text("a" * (1600 * 3 + 25), tokens=400, overlap=80)
    assert len(chunks) > 1
    assert all(len(c.text) <= 1600 for c in chunks)
    assert "".join(c.text for c in chunks) == "a" * (
        1600 * 3 + 25
    )  # pieces of one line, no overlap


def test_case_69_cjk_yields_more_chunks_than_ascii() -> None:
    cjk = chunk_text("\n".join(["这是一个测试句子用来检查分块"] * 60), tokens=100, overlap=0)
    ascii_ = chunk_text("\n".join(["abcdefghijklmn"] * 60), tokens=100, overlap=0)
    assert len(cjk) > len(ascii_)


def test_case_69_cjk_chunks_hold_at_most_tokens_times_two_characters() -> None:
    chunks = chunk_text(
        "\n".join(["我们今天讨论了新的数据库方案和部署计划。"] * 50), tokens=100, overlap=20
    )
    assert all(_cjk_count(c.text) <= 200 for c in chunks)


def test_case_69_english_sentence_chunks_within_400_chars() -> None:
    chunks = chunk_text(
        "\n".join(["The quick brown fox jumps over the lazy dog."] * 60), tokens=100, overlap=20
    )
    assert all(len(c.text) <= 400 for c in chunks)


def test_case_69_mixed_content_keeps_first_and_last_line() -> None:
    text = "\n".join(f"Line {i}: 混合内容 mixed content" for i in range(30))
    chunks = chunk_text(text, tokens=50, overlap=10)
    joined = "\n".join(c.text for c in chunks)
    assert "Line 0" in joined and "Line 29" in joined


def test_case_69_long_cjk_line() -> None:
    chunks = chunk_text("中" * 2000, tokens=200, overlap=0)
    assert len(chunks) >= 8
    assert all(len(c.text) <= 400 for c in chunks)


def test_case_69_astral_characters_are_not_broken() -> None:
    chunks = chunk_text("\U00020000" * 500, tokens=99, overlap=0)
    for c in chunks:
        c.text.encode("utf-8")  # would raise on a lone surrogate
    assert "".join(c.text for c in chunks) == "\U00020000" * 500


def test_case_69_a_times_2000_few_chunks() -> None:
    assert len(chunk_text("a" * 2000, tokens=200, overlap=0)) <= 5


def test_line_ranges_are_one_based_inclusive_and_cover_every_line() -> None:
    lines = [f"line {i} " + "word " * 30 for i in range(1, 101)]
    chunks = chunk_text("\n".join(lines), tokens=100, overlap=20)
    covered: set[int] = set()
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= 100
        assert c.text.split("\n") == lines[c.start_line - 1 : c.end_line]
        covered.update(range(c.start_line, c.end_line + 1))
    assert covered == set(range(1, 101))


def test_overlap_carries_whole_lines() -> None:
    lines = [f"L{i} " + "x" * 60 for i in range(40)]
    chunks = chunk_text("\n".join(lines), tokens=100, overlap=30)
    for prev, nxt in itertools.pairwise(chunks):
        assert nxt.start_line <= prev.end_line  # overlap present
        assert prev.text.split("\n")[-1] in nxt.text.split("\n")


def test_quirk_fixed_no_overlap_only_chunk() -> None:
    """Upstream emits a chunk made only of the carried overlap when a long line follows it."""
    text = "a" * 400 + "\n" + "b" * 1600 + "\n" + "c"
    chunks = chunk_text(text, tokens=400, overlap=80)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 1), (2, 2), (3, 3)]
    assert len({c.hash for c in chunks}) == len(chunks)


def test_quirk_fixed_no_newlines_invented_inside_a_long_line() -> None:
    """Upstream joined the pieces of one long line with newlines (PR #96747)."""
    chunks = chunk_text("word " * 1000, tokens=100, overlap=0)
    assert all("\n" not in c.text for c in chunks)


def test_crlf_lines_are_split_without_carriage_returns() -> None:
    chunks = chunk_text("one\r\ntwo\r\nthree", tokens=400, overlap=0)
    assert chunks[0].text == "one\ntwo\nthree"
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 3)


def test_empty_and_blank_text_produce_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text("\n\n   \n") == []


def test_weighted_length_counts_cjk_as_four() -> None:
    assert weighted_length("ab") == 2
    assert weighted_length("中文") == 8
    assert weighted_length("한국") == 8


def _jsonl(records: list[object]) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records)


def test_case_80_session_flattening_and_line_map() -> None:
    raw = _jsonl(
        [
            {"type": "session", "id": "s1"},
            {"type": "meta"},
            {"type": "model_change"},
            {"type": "message", "message": {"role": "user", "content": "Hello world"}},
            {"type": "custom", "data": {}},
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Hi there,\n  how can I help?"}],
                },
            },
            {
                "type": "message",
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "Tell me a joke"}],
                },
            },
        ]
    )
    session = flatten_session(raw)
    assert session.text.split("\n") == [
        "User: Hello world",
        "Assistant: Hi there, how can I help?",
        "User: Tell me a joke",
    ]
    assert session.line_map == (4, 6, 7)
    assert session.timestamps_ms == (0, 0, 0)


def test_case_81_no_messages_and_invalid_lines() -> None:
    assert flatten_session(_jsonl([{"type": "session"}])).line_map == ()
    raw = _jsonl(
        [
            "",
            "not json",
            {"type": "message", "message": {"role": "user", "content": "a"}},
            "{",
            {"type": "message", "message": {"role": "assistant", "content": "b"}},
        ]
    )
    assert flatten_session(raw).line_map == (3, 5)


def test_case_82_timestamps_from_record_and_message() -> None:
    raw = _jsonl(
        [
            {
                "type": "message",
                "timestamp": "2026-01-02T03:04:05Z",
                "message": {"role": "user", "content": "a"},
            },
            {
                "type": "message",
                "message": {"role": "assistant", "content": "b", "timestamp": 1_700_000_000},
            },
        ]
    )
    assert flatten_session(raw).timestamps_ms == (1767323045000, 1_700_000_000_000)


def test_case_70_session_chunks_are_remapped_to_jsonl_lines() -> None:
    records = [
        {
            "type": "message",
            "message": {"role": "user", "content": f"message number {i} " + "x" * 40},
        }
        for i in range(10)
    ]
    raw = _jsonl([x for r in records for x in ({"type": "custom"}, r)])  # messages on even lines
    session = flatten_session(raw)
    chunks = [session.remap(c) for c in chunk_text(session.text, tokens=20, overlap=0)]
    assert len(chunks) > 1
    assert chunks[0].start_line == 2 and chunks[-1].end_line == 20
    assert all(c.start_line <= c.end_line for c in chunks)


def _msg(content: object, **fields: object) -> dict[str, object]:
    return {"type": "message", "message": {"role": "user", "content": content, **fields}}


def test_lines_that_are_not_json_are_skipped_and_listed() -> None:
    """NaN and Infinity (not JSON, as in JavaScript), nesting too deep to parse, a raw NUL
    byte and truncated lines are skipped and reported; the other lines are kept."""
    raw = "\n".join(
        [
            json.dumps(_msg("first kept")),
            '{"type": "message", "timestamp": NaN, "message": {"role": "user", "content": "x"}}',
            '{"type": "message", "message": {"role": "user", "content": "y", "timestamp": -Infinity}}',
            "[" * 100_000 + "]" * 100_000,
            '{"type": "message", "message": {"role": "user", "content": "a\x00b"}}',
            '{"type": "mess',
            "null",
            json.dumps(_msg("last kept")),
        ]
    )
    session = flatten_session(raw)
    assert session.text.split("\n") == ["User: first kept", "User: last kept"]
    assert session.line_map == (1, 8)
    assert session.bad_lines == (2, 3, 4, 5, 6)


def test_unusable_timestamps_are_zero_and_keep_their_message() -> None:
    # Written as JSON text: 1e400 is valid JSON (a float too large, inf to Python).
    stamps = ["1e400", "-1e400", "1" + "0" * 400, "-1" + "0" * 400, "1e300", "true"]
    stamps += ['"garbage"', '"0001-01-01"', '""', "[1]", "{}", "null"]
    lines = [
        f'{{"type": "message", "message": {{"role": "user", "content": "m{i}", "timestamp": {s}}}}}'
        for i, s in enumerate(stamps)
    ]
    session = flatten_session("\n".join(lines))
    assert session.line_map == tuple(range(1, len(stamps) + 1))
    assert session.bad_lines == ()
    assert session.timestamps_ms[:7] == (0,) * 7
    assert all(isinstance(ms, int) and abs(ms) < 2**63 for ms in session.timestamps_ms)


def test_records_of_unexpected_shapes_are_ignored() -> None:
    raw = _jsonl(
        [
            [1, 2],
            "42",
            '"text"',
            {"type": "message", "message": "not a dict"},
            {"type": "message", "message": {"role": ["user"], "content": "x"}},
            {"type": ["message"], "message": {"role": "user", "content": "x"}},
            _msg(42),
            _msg({"text": "a dict"}),
            _msg([1, None, {"type": "text", "text": 5}, {"type": "text", "text": "kept"}]),
        ]
    )
    session = flatten_session(raw)
    assert session.text == "User: kept"
    assert session.line_map == (9,)
    assert session.bad_lines == ()


def test_lone_surrogates_from_json_escapes_become_replacement_characters() -> None:
    session = flatten_session(
        '{"type": "message", "message": {"role": "user", "content": "a\\ud800b"}}'
    )
    assert session.text == "User: a\ufffdb"
    session.text.encode("utf-8")  # storable: strict UTF-8 must not fail
