"""Chunking conformance (spec §2, §15 cases 69–70), the fixes to upstream's quirks, and
structure-aware chunking: heading sections, heading paths and dates (issue #11)."""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC, date
from zoneinfo import ZoneInfo

from memdir.chunking import (
    SECTION_SLACK,
    Chunk,
    chunk_markdown,
    chunk_session,
    chunk_text,
    embed_input,
    flatten_session,
    sha256_hex,
    split_lines,
)
from memdir.markdown import entry_hours, heading_date, named_days, part_of_day, weekends_from
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


# -- structure-aware chunking (chunking.strategy = "structure") ---------------------------------

DAILY = """# 2026-08-04

### 09:10 - standup
Talked about the relay rollout.

### 14:05 - relay: broker decision
We chose NATS over Kafka.
- reason: ops cost

### 16:00 - pinged Bob about invoices
### 17:30 - relay deploy
Deployed to staging.
"""


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _assert_exact(text: str, chunks: list[Chunk]) -> None:
    """Every chunk is exactly the file's lines start_line..end_line."""
    lines = split_lines(text)
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])


def test_daily_log_of_timed_entries_gives_one_chunk_per_entry() -> None:
    chunks = chunk_markdown(DAILY, path="memory/2026-08-04.md")
    assert [(c.start_line, c.end_line) for c in chunks] == [(3, 4), (6, 8), (10, 10), (11, 12)]
    assert chunks[0].text == "### 09:10 - standup\nTalked about the relay rollout."
    assert chunks[2].text == "### 16:00 - pinged Bob about invoices"  # a one-line entry
    assert {c.context for c in chunks} == {"2026-08-04"}  # the H1 with no body of its own
    assert {c.date for c in chunks} == {"2026-08-04"}
    _assert_exact(DAILY, chunks)


def test_the_window_strategy_spans_several_entries_of_the_same_log() -> None:
    """The contrast that motivates structure: one window holds every entry."""
    (window,) = chunk_text(DAILY)
    assert (window.start_line, window.end_line) == (1, 12)
    assert (window.context, window.date) == ("", None)
    assert window.hash == sha256_hex(window.text)  # hashed as before: the cache stays valid


def test_nested_headings_build_the_heading_path() -> None:
    text = (
        "# Relay\n\nIntro to the relay project.\n\n## Design\n### Broker\nNATS, clustered.\n"
        "### Storage\nJetStream on local disks.\n## Ops\nPager rota.\n"
    )
    chunks = chunk_markdown(text, path="memory/projects/relay.md")
    got = [(c.start_line, c.end_line, c.context) for c in chunks]
    assert got == [
        (1, 3, "Relay"),
        (6, 7, "Relay › Design"),  # "## Design" has only subsections: no chunk of its own
        (8, 9, "Relay › Design"),
        (10, 11, "Relay"),
    ]
    _assert_exact(text, chunks)


def test_title_comes_from_the_path_when_there_is_no_h1() -> None:
    chunks = chunk_markdown("## Broker\nNATS.\n", path="memory/projects/relay.md")
    assert [c.context for c in chunks] == ["projects/relay"]
    assert chunk_markdown("x\n", path="notes/todo.markdown")[0].context == "notes/todo"


def test_the_files_date_prefixes_a_title_that_lacks_it() -> None:
    text = "# Daily log\n\n## Relay\nDeployed.\n"
    (chunk,) = chunk_markdown(text, path="memory/2026-08-04-relay.md")
    assert chunk.context == "2026-08-04 Daily log"
    assert chunk.date == "2026-08-04"


def test_long_section_is_split_with_overlap_and_context_on_every_piece() -> None:
    paragraphs = ["\n".join(f"p{p} line {i} " + "word " * 12 for i in range(4)) for p in range(6)]
    text = "# Relay\n\n## Broker\n" + "\n\n".join(paragraphs) + "\n\n## Ops\nPager rota.\n"
    chunks = chunk_markdown(text, path="memory/projects/relay.md", tokens=100, overlap=20)
    broker = [c for c in chunks if c.context.startswith("Relay › Broker") or "## Broker" in c.text]
    assert len(broker) > 2
    assert broker[0].text.startswith("## Broker\n") and broker[0].context == "Relay"
    assert {c.context for c in broker[1:]} == {"Relay › Broker"}  # its heading, not in its text
    for prev, nxt in itertools.pairwise(broker):
        assert nxt.start_line <= prev.end_line  # overlap
        assert prev.text.split("\n")[-1] in nxt.text.split("\n")
    for c in broker:
        assert weighted_length(c.text) <= 400
        assert not c.text.startswith("\n") and not c.text.endswith("\n")
    assert chunks[-1].text == "## Ops\nPager rota."  # the next section stands alone
    _assert_exact(text, chunks)
    every = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert every >= {n for n, line in enumerate(split_lines(text), 1) if line.strip()} - {1}


def test_a_split_prefers_blank_lines_then_top_level_list_items() -> None:
    # One paragraph, a long list whose items go on over an indented second line.
    items = [f"- item {i} " + "word " * 6 + "\n  more on it " + "word " * 6 for i in range(12)]
    text = "## Todo\n" + "\n".join(items) + "\n"
    chunks = chunk_markdown(text, path="memory/todo.md", tokens=100, overlap=0)
    assert len(chunks) > 1
    for c in chunks[1:]:
        assert c.text.startswith("- item ")
    gap = "## Notes\n" + "\n\n".join("\n".join(["short words here"] * 4) for _ in range(8))
    pieces = chunk_markdown(gap, path="memory/n.md", tokens=50, overlap=0)
    lines = split_lines(gap)
    for c in pieces[1:]:
        assert lines[c.start_line - 2] == ""  # each piece starts right after a blank line


def test_heading_inside_a_fenced_code_block_is_not_a_heading() -> None:
    text = "# Setup\n\n## Shell\n```sh\n# not a heading\necho hi\n```\n~~~\n## nor this\n~~~\n"
    chunks = chunk_markdown(text, path="memory/setup.md")
    assert [(c.start_line, c.end_line, c.context) for c in chunks] == [(3, 10, "Setup")]


def test_a_code_block_that_fits_is_never_cut() -> None:
    prose = "\n".join("Some prose words here, quite long." for _ in range(6))
    code = "```python\n" + "\n".join(f"x{i} = {i}  # comment" for i in range(14)) + "\n```"
    text = f"## Notes\n{prose}\n{code}\nAfter the code.\n"
    chunks = chunk_markdown(text, path="memory/n.md", tokens=100, overlap=20)
    opening = text.split("\n").index("```python") + 1
    closing = opening + 15
    assert len(chunks) > 1
    assert any(c.start_line <= opening and closing <= c.end_line for c in chunks)
    for c in chunks:  # no piece starts or ends inside the block
        assert not opening < c.start_line <= closing
        assert not opening <= c.end_line < closing
    _assert_exact(text, chunks)


def test_a_code_block_too_big_for_a_chunk_is_cut_at_lines() -> None:
    code = "```\n" + "\n".join(f"line_{i} = {i}  # padding padding padding" for i in range(40))
    text = f"## Dump\n{code}\n```\n"
    chunks = chunk_markdown(text, path="memory/dump.md", tokens=100, overlap=20)
    assert len(chunks) > 3
    assert chunks[0].text.startswith("## Dump\n```\nline_0")  # the heading stays with its start
    assert all(weighted_length(c.text) <= 400 for c in chunks)
    _assert_exact(text, chunks)


def test_front_matter_gives_title_and_date_and_is_not_chunked() -> None:
    text = '---\ntitle: "Relay project"\ndate: 2026-03-01\ntags: [ops]\n---\nIntro.\n\n## Broker\nNATS.\n'
    chunks = chunk_markdown(text, path="memory/projects/relay.md")
    assert [(c.start_line, c.end_line) for c in chunks] == [(6, 6), (8, 9)]
    assert [c.context for c in chunks] == ["2026-03-01 Relay project"] * 2
    assert [c.date for c in chunks] == ["2026-03-01"] * 2
    assert all("title:" not in c.text for c in chunks)
    # An H1 wins over the front matter's title; the file name's date over its date.
    other = chunk_markdown(
        "---\ntitle: T\ndate: 2026-03-01\n---\n# Real\nx\n", path="memory/2026-04-05.md"
    )
    assert [(c.context, c.date) for c in other] == [("2026-04-05 Real", "2026-04-05")]


def test_a_note_that_opens_with_a_rule_keeps_its_text() -> None:
    text = "---\nNot front matter: a rule, then prose.\n---\nMore.\n"
    (chunk,) = chunk_markdown(text, path="memory/n.md")
    assert (chunk.start_line, chunk.end_line, chunk.context) == (1, 4, "n")


def test_text_before_the_first_heading_is_a_section() -> None:
    chunks = chunk_markdown("Loose note.\n\n# Title\nBody.\n", path="memory/x.md")
    assert [(c.start_line, c.end_line, c.context) for c in chunks] == [
        (1, 1, "Title"),
        (3, 4, "Title"),
    ]


def test_a_file_without_headings_is_packed_by_paragraphs() -> None:
    paragraphs = [f"Paragraph {i}. " + "word " * 25 for i in range(8)]  # ~140 chars each
    text = "\n\n".join(paragraphs) + "\n"
    chunks = chunk_markdown(text, path="memory/notes.md", tokens=100, overlap=0)
    lines = split_lines(text)
    assert [c.text.count("Paragraph") for c in chunks] == [2, 2, 2, 2]  # two fit in 400 chars
    for c in chunks:
        assert c.text.startswith("Paragraph") and lines[c.end_line - 1].strip()
        assert c.context == "notes" and c.date is None
    assert chunk_markdown("one short note\n", path="memory/n.md")[0].text == "one short note"


def test_date_from_markers_headings_and_file_name() -> None:
    text = (
        "# Decisions\n\n## Broker\nWe chose NATS.\n- 2026-10-28: revisited, kept it\n"
        "- 2026-10-02: first choice\n\n## Storage\nUpdated: 2026-11-01\nDisks.\n\n"
        "## Hosting\nAppended 2026-09-09 after the call.\n\n## 数据库\n更新于 2026-12-24\n\n"
        "## 2026-07-01\nA dated heading.\n\n## Misc\nA date in prose, 2026-01-01, is no marker.\n"
    )
    by_heading = {
        c.text.split("\n")[0]: c.date for c in chunk_markdown(text, path="memory/decisions.md")
    }
    assert by_heading == {
        "## Broker": "2026-10-28",  # the newest marker
        "## Storage": "2026-11-01",
        "## Hosting": "2026-09-09",
        "## 数据库": "2026-12-24",
        "## 2026-07-01": "2026-07-01",  # a date in the heading path
        "## Misc": None,
    }
    dated = chunk_markdown("## Misc\nNo marker.\n", path="memory/2026-10-28-some-slug.md")
    assert dated[0].date == "2026-10-28"  # the file name's date
    nested = chunk_markdown("## 2026-05-01\n### Broker\nNATS.\n", path="memory/log.md")
    assert (nested[0].context, nested[0].date) == ("log › 2026-05-01", "2026-05-01")
    assert chunk_markdown("- 2026-02-30: no such day\n", path="m.md")[0].date is None


def test_heading_dates_in_the_forms_people_write() -> None:
    # with a year: taken as written, in any form
    for title in ("2026/11/26 standup", "2026年11月26日 周会", "Launch Nov 26, 2026", "2026-11-26"):
        assert heading_date(title) == "2026-11-26", title
    # without one: the year nearest the reference day, else no date
    assert heading_date("チケット（11/26 時点）", "2026-12-03") == "2026-11-26"
    assert heading_date("チケット（11/26 時点）") is None
    assert heading_date("11月26日 会议", "2027-02-01") == "2026-11-26"
    assert heading_date("1/15 kickoff", "2026-12-20") == "2027-01-15"  # nearest, ahead
    assert heading_date("Standup Sept 9th", "2026-10-01") == "2026-09-09"
    assert heading_date("1:56 pm on 8 May, 2023") == "2023-05-08"
    assert heading_date("Review 26 Nov", "2026-12-01") == "2026-11-26"
    assert heading_date("Sprint 3 may slip", "2026-05-01") is None  # a verb, not a month
    assert heading_date("9/8（火）", "2026-09-01") == heading_date("9/8 Tue", "2026-09-01")
    # a bare M/D of one digit each needs a weekday: Phase 1/2 is no date
    # … or just before it
    assert heading_date("周五（9/4）上线", "2026-09-01") == "2026-09-04"
    assert heading_date("金曜 9/4 リリース", "2026-09-01") == heading_date("Fri 9/4", "2026-09-01")
    assert heading_date("Phase 1/2", "2026-05-01") is None
    assert heading_date("Step 1/5 montage", "2026-05-01") is None
    assert heading_date("see a/10/28 and v1.13/2", "2026-05-01") is None
    assert heading_date("2026年2月30日") is None  # no such day
    # Korean writes 년 / 월 / 일 where Chinese and Japanese write 年 / 月 / 日
    assert heading_date("2026년 11월 26일 회의") == "2026-11-26"
    assert heading_date("11월 26일 (목)", "2026-12-03") == "2026-11-26"
    assert heading_date("3개월 회고", "2026-12-03") is None  # three months, no month


def test_the_days_a_question_names_in_the_forms_people_write() -> None:
    """In a question, a date without a year names that day of any year (``--MM-DD``)."""

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question)]

    assert days("what did I do on Aug 3?") == ["--08-03"]
    assert days("8月3日做了什么？") == days("8月3号") == days("3 August") == ["--08-03"]
    assert days("9/19 的牙医") == ["--09-19"] and days("9/8（火）の予定") == ["--09-08"]
    assert days("2026/8/3 standup") == days("2026年8月3日") == ["2026-08-03"]
    assert days("Aug 3, 2026 and 2026-08-04") == ["2026-08-03", "2026-08-04"]
    assert days("2月29日") == ["--02-29"] and days("2月30日") == []
    assert days("8월 3일에 뭐 했어?") == days("8월3일") == ["--08-03"]
    assert days("2026년 8월 3일") == ["2026-08-03"] and days("8월 32일") == []
    # no day: a fraction, a verb, a version, a one-digit M/D without a weekday
    assert days("Phase 1/2 done; Sprint 3 may slip; v1.13.2 现在") == []
    assert days("8/3 那天") == []
    # … except in a question (question=True), where people write a day that way, unless a
    # word (not one that puts a day after it) or a number comes before it
    asked = [
        [day for _, _, day in named_days(q, question=True)]
        for q in ("8/3 那天", "what happened on 8/3?", "我8/3去了哪", "between 9/1 and 9/5")
    ]
    between = [f"--09-0{d}" for d in range(1, 6)]  # a range: each of its days
    assert asked == [["--08-03"], ["--08-03"], ["--08-03"], between]
    for no_day in (
        "Phase 1/2 是什么",
        "step 3/4 的结果",
        "v1/2",
        "第1/2期",
        "1/2% 的用户",
        "2/30 吃了啥",
    ):
        assert named_days(no_day, question=True) == [], no_day
    # a score or a count is no day, in a note or a question: quoted alone, after an article
    # or a verb of rating, before a word counting points; a day written next to it stays one
    for score in (
        "スタンプの「7/10」だけでは意味が伝わらない",
        '他说 "8/10"',
        "the demo got a 7/10 from Ken",
        "rated 9/10 by the panel",
        "给了 7/10 分的评价",
        "4/5 stars",
    ):
        assert named_days(score) == named_days(score, question=True) == [], score
    assert days("7/10 上线") == days("7/10 分享会") == ["--07-10"]
    assert days("「9/4（金）」") == ["--09-04"]
    assert [d for _, _, d in named_days("「4/5」是哪天的分数？", question=True)] == []
    question = "who did I meet on Aug 3?"
    ((start, end, _),) = named_days(question)
    assert question[start:end] == "Aug 3"


def test_the_days_a_question_names_from_today() -> None:
    """Yesterday, 昨天, last Friday: counted from the day the question is asked."""

    friday = date(2026, 12, 4)

    def days(question: str, today: date | None = friday) -> list[str]:
        return [day for _, _, day in named_days(question, today)]

    assert days("what did we decide yesterday?") == days("昨天的 standup") == ["2026-12-03"]
    assert days("昨日の打ち合わせ") == days("어제 회의") == ["2026-12-03"]
    assert days("the day before yesterday") == days("前天和谁吃饭") == ["2026-12-02"]
    assert days("today's standup") == days("今天做了什么") == ["2026-12-04"]
    # last Friday: the latest Friday before today; 上周五: the Friday of the week before
    assert days("what did I do last Friday?") == ["2026-11-27"]
    assert days("last Monday") == ["2026-11-30"]
    assert days("上周五的会议") == days("先週の金曜日") == ["2026-11-27"]
    assert days("上周一") == ["2026-11-23"]
    # every way Chinese names the week before names its weekday too, traditional script and
    # Korean included (上个星期五 named no day, and 지난주 금요일 the whole week)
    assert days("上个星期五") == days("上個星期五") == days("上礼拜五") == ["2026-11-27"]
    assert days("上禮拜五") == days("지난주 금요일에 뭐 했어?") == ["2026-11-27"]
    # so many days back, and the weekday of the week before last (上上周五 was last week's)
    assert days("what did I do 3 days ago?") == days("三天前") == days("3日前") == ["2026-12-01"]
    assert days("3일 전") == days("大前天") == ["2026-12-01"]
    assert days("two days ago") == days("이틀 전") == days("그저께") == ["2026-12-02"]
    assert days("上上周五") == days("先々週の金曜日") == days("지지난주 금요일") == ["2026-11-20"]
    assert days("12日前に提出") == []  # before the 12th: a count only up to ten days
    assert days("这个礼拜一") == days("이번 주 월요일") == days("這禮拜一") == ["2026-11-30"]
    # and ahead, as a replayed conversation (or a plan headed by its day) asks: tomorrow, the
    # day after, a weekday of next week, next week and next month
    assert days("what's the plan for tomorrow?") == days("明天有什么安排") == ["2026-12-05"]
    assert days("明日の予定") == days("내일 회의") == ["2026-12-05"]
    assert days("the day after tomorrow") == days("后天") == days("明後日") == ["2026-12-06"]
    assert days("下周五") == days("下个星期五") == days("来週の金曜日") == ["2026-12-11"]
    assert days("다음 주 금요일") == ["2026-12-11"] and days("明日香さんに連絡") == []
    following = [f"2026-12-{d:02d}" for d in range(7, 14)]
    assert days("what's on next week?") == days("下周有什么安排") == days("来週") == following
    january = [f"2027-01-{d:02d}" for d in range(1, 32)]
    assert days("next month") == days("下个月") == days("来月") == days("다음 달") == january
    assert days("next Friday") == []  # this week's Friday as often as the next one's
    # a week named from today: each of its days, Monday first, this week up to today
    last = [f"2026-11-{d}" for d in range(23, 30)]
    assert days("what did I do last week?") == days("上周做了什么") == last
    assert days("先週は何をした？") == days("지난주에 뭐 했어?") == days("上个星期") == last
    # so many weeks back: the calendar week holding that day; the week before last
    assert days("a week ago") == days("一周前") == days("1주 전") == last
    before_last = [f"2026-11-{d}" for d in range(16, 23)]
    assert days("two weeks ago") == days("两周前") == days("2週間前") == before_last
    assert days("the week before last") == days("上上周") == days("先々週") == before_last
    assert days("지지난주") == before_last
    this = ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"]
    assert days("this week's standups") == days("这周的 standup") == days("今週") == this
    # a weekend: the Saturday and Sunday of the calendar week named (上周末 named all of last
    # week, 这周末 this week up to today, and "last weekend" nothing)
    weekend = ["2026-11-28", "2026-11-29"]
    assert days("what did I do last weekend?") == days("上周末做了什么") == weekend
    assert days("上个周末") == days("先週末") == days("지난 주말에 뭐 했어?") == weekend
    coming = ["2026-12-05", "2026-12-06"]
    assert days("this weekend") == days("这个周末") == days("本周末") == days("今週末") == coming
    assert days("이번 주말") == days("這個週末") == coming
    after = ["2026-12-12", "2026-12-13"]
    assert days("下周末有什么安排") == days("来週末") == days("다음 주말") == after
    before = ["2026-11-21", "2026-11-22"]
    assert days("the weekend before last") == days("上上周末") == days("先々週末") == before
    assert days("지지난 주말") == before
    assert days("next weekend") == []  # this week's weekend as often as the next one's

    # a weekend a question names alone, by its tense: the latest, or the next; none for a habit
    def asked(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    assert asked("what did I do over the weekend?") == asked("周末做了什么？") == weekend
    assert asked("週末は何をした？") == weekend and asked("周末有什么安排？") == coming
    assert asked("周末一般几点起？") == asked("每个周末都做什么") == []
    # a weekday of this week: this Friday, 这周五, 今週の金曜日
    assert days("this Friday") == days("这周五的会") == days("今週の金曜日") == ["2026-12-04"]
    assert days("本周一") == days("this Monday") == ["2026-11-30"]
    ((start, end, _), *rest) = named_days("上周的会", friday)
    assert (start, end) == (0, 2) and {(a, b) for a, b, _ in rest} == {(0, 2)}
    # a month: each of its days, without a year when it is named without one
    september = [f"--09-{d:02d}" for d in range(1, 31)]
    assert days("what did I do in September?") == days("9月做了什么") == september
    assert days("9月份的 standup") == days("during Sept") == september
    assert days("9월에 뭐 했어?") == september and days("3개월") == []  # 3 months: no month
    assert (
        days("2026年9月")
        == days("2026년 9월")
        == days("in September 2026")
        == [d.replace("--", "2026-") for d in september]
    )
    assert len(days("in February")) == 29  # 29 February of a leap year too
    assert days("9月3日") == ["--09-03"] and days("Sept 3") == ["--09-03"]  # a day, no month
    assert days("May I ask?") == days("3个月") == [] and days("9 月 3 号") == ["--09-03"]
    assert (
        days("last month")
        == days("上个月")
        == days("先月")
        == days("a month ago")
        == [f"2026-11-{d:02d}" for d in range(1, 31)]
    )
    # so many months back, and the month before last (上上个月 was last month)
    october = [f"2026-10-{d:02d}" for d in range(1, 32)]
    assert days("two months ago") == days("两个月前") == days("2か月前") == october
    assert days("2개월 전") == days("두 달 전") == days("the month before last") == october
    assert days("上上个月") == days("先々月") == days("지지난달") == october
    assert days("3개월 전") == days("3个月前") == [f"2026-09-{d:02d}" for d in range(1, 31)]
    assert (
        days("this month")
        == days("这个月")
        == days("今月")
        == ["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"]
    )
    # without a day to count from, only what a date names
    assert days("what did we decide yesterday?", None) == []
    assert days("what did I do last week?", None) == days("last month", None) == []
    assert days("yesterday and Aug 3") == ["2026-12-03", "--08-03"]


def test_a_heading_date_without_a_year_dates_its_chunks() -> None:
    text = "# Hanami\n\n## 画面\nS01.\n\n## チケット（11/26 時点）\n| HNM-147 | In review |\n"
    chunks = chunk_markdown(text, path="memory/projects/hanami.md", modified="2026-12-03")
    assert [c.date for c in chunks] == [None, "2026-11-26"]
    # the file's own day is the reference before its modification day
    logged = chunk_markdown(
        "## 1月5日 plan\nShip.\n", path="memory/2026-12-28.md", modified="2027-03-01"
    )
    assert logged[0].date == "2027-01-05"
    undated = chunk_markdown(text, path="memory/projects/hanami.md")
    assert [c.date for c in undated] == [None, None]
    meta = chunk_markdown("---\ndate: 2026年3月1日\n---\nx\n", path="m.md")
    assert meta[0].date == "2026-03-01"


def test_list_items_dated_without_a_year_date_an_undated_note_only() -> None:
    note = "# QC\n\n## 报价\n- 10/09 第一版 ¥168,000\n- 11/05 最终 ¥152,000\n- 3/4 done\n"
    (quote,) = chunk_markdown(note, path="memory/projects/qc.md", modified="2026-12-03")
    assert quote.date == "2026-11-05"  # the newest item; 3/4 is no date
    cjk = chunk_markdown("- 11月14日 完成\n", path="memory/projects/pg.md", modified="2027-01-02")
    assert cjk[0].date == "2026-11-14"
    for marked in ("Updated: 11/26", "Tickets (as of 11/26)", "更新于 11月26日"):
        body = f"# Hanami\n\n{marked}\n| HNM-147 | in review |\n"
        dated = chunk_markdown(body, path="memory/projects/h.md", modified="2026-12-03")
        assert dated[0].date == "2026-11-26", marked
    prose = chunk_markdown("Shipped 11/26 builds.\n", path="memory/p.md", modified="2026-12-03")
    assert prose[0].date is None  # a date in prose is no marker
    # in a daily log an item starting with another day is a plan: the file's day stands
    (log,) = chunk_markdown(
        "- 11/26 deadline\n", path="memory/2026-11-20.md", modified="2026-12-03"
    )
    assert log.date == "2026-11-20"
    # without a modification day there is no year to place it in
    assert chunk_markdown(note, path="memory/projects/qc.md")[0].date is None


def test_hash_covers_the_heading_path() -> None:
    one = chunk_markdown("# Alpha\n\n## Broker\nNATS.\n", path="memory/a.md")[0]
    two = chunk_markdown("# Beta\n\n## Broker\nNATS.\n", path="memory/a.md")[0]
    assert one.text == two.text == "## Broker\nNATS."
    assert (one.context, two.context) == ("Alpha", "Beta")
    assert one.hash != two.hash
    assert one.hash == sha256_hex(embed_input(one.context, one.text))
    assert embed_input("Alpha", "x") == "Alpha\nx" and embed_input("", "x") == "x"


def test_structure_chunks_keep_crlf_files_exact() -> None:
    chunks = chunk_markdown("# T\r\n\r\n## A\r\none\r\n## B\r\ntwo\r\n", path="m.md")
    assert [(c.start_line, c.end_line, c.text) for c in chunks] == [
        (3, 4, "## A\none"),
        (5, 6, "## B\ntwo"),
    ]


def test_a_section_a_little_over_the_size_stays_whole() -> None:
    # A day's list a little over 400 tokens, cut at 400, left a small last piece of lines
    # the first piece mostly holds too; up to SECTION_SLACK times the size it stays whole.
    item = "- 10:00 " + "word " * 60  # 308 characters, 77 tokens
    day = "# 2026-11-25\n\n" + "\n".join([item] * 6)  # ~470 tokens
    chunks = chunk_markdown(day, path="memory/2026-11-25.md", tokens=400, overlap=80)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 8)]
    longer = "# 2026-11-25\n\n" + "\n".join([item] * 8)  # ~620 tokens: cut
    chunks = chunk_markdown(longer, path="memory/2026-11-25.md", tokens=400, overlap=80)
    assert len(chunks) == 2
    assert all(weighted_length(c.text) <= 400 * 4 for c in chunks)
    # a paragraph of the same size is one long line: cut inside it, as before
    prose = "# Abstract\n\n" + " ".join([item[8:]] * 6)
    chunks = chunk_markdown(prose, path="papers/a.md", tokens=400, overlap=80)
    assert len(chunks) > 1 and all(weighted_length(c.text) <= 400 * 4 for c in chunks)


def test_structure_chunks_of_random_markdown_are_exact_and_bounded() -> None:
    pool = ["# T", "## S", "### E", "", "", "words in a line", "- item", "  - sub", "1. n",
            "```", "~~~", "    # indented", "x" * 700, "中文内容" * 50, "Updated: 2026-10-28",
            "---", "#tag", "####### seven"]  # fmt: skip
    rng = random.Random(7)
    for _ in range(400):
        text = "\n".join(rng.choice(pool) for _ in range(rng.randint(0, 60)))
        tokens = rng.choice([8, 30, 100, 400])
        chunks = chunk_markdown(text, path="memory/x.md", tokens=tokens, overlap=tokens // 4)
        lines = split_lines(text)
        for c in chunks:
            assert 1 <= c.start_line <= c.end_line <= len(lines)
            # a section a little over the size stays whole (SECTION_SLACK)
            bound = max(32, tokens * 4) * SECTION_SLACK
            assert c.text.strip() and weighted_length(c.text) <= bound
            inner = c.text.split("\n")
            if len(inner) > 2:
                assert inner[1:-1] == lines[c.start_line : c.end_line - 1]
            whole = "\n".join(lines[c.start_line - 1 : c.end_line])
            assert c.text in whole  # pieces of a long line are parts of it


def test_session_chunks_get_the_transcript_name_and_first_date() -> None:
    raw = _jsonl(
        [
            {"type": "session"},
            _msg("no stamp yet"),
            _msg("first stamped", timestamp="2026-01-02T23:30:00+00:00"),
            _msg("later", timestamp="2026-01-05T10:00:00Z"),
        ]
    )
    session = flatten_session(raw)
    (chunk,) = chunk_session(session, name="abc", zone=UTC)
    assert (chunk.start_line, chunk.end_line) == (2, 4)
    assert chunk.context == "session abc › messages 1–3"
    assert chunk.date == "2026-01-02"
    (tokyo,) = chunk_session(session, name="abc", zone=ZoneInfo("Asia/Tokyo"))
    assert tokyo.date == "2026-01-03"  # 08:30 the next morning there
    assert tokyo.text == chunk.text == "\n".join(session.text.split("\n"))
    (undated,) = chunk_session(flatten_session(_jsonl([_msg("x")])), name="n")
    assert (undated.context, undated.date) == ("session n › message 1", None)


def test_the_lines_of_a_chunk_worth_a_vector_of_their_own() -> None:
    """Each line with at least six characters besides list and table marks, after the
    chunk's heading path; none for a chunk of one such line, which its own vector stands for."""
    from memdir.chunking import line_inputs

    text = "### 10:40 - lunch\n- 12:00 noodles downstairs\n- ok\n|---|---|\n| 牛肉面 | 28 元 |\n"
    assert line_inputs("2026-08-03 周一", text) == [
        "2026-08-03 周一\n### 10:40 - lunch",
        "2026-08-03 周一\n- 12:00 noodles downstairs",
        "2026-08-03 周一\n| 牛肉面 | 28 元 |",
    ]
    assert line_inputs("", "one line only\n- ok") == []
    assert line_inputs("", "first line here\nsecond line here") == [
        "first line here",
        "second line here",
    ]


def test_a_weekday_a_question_names_alone_is_read_by_its_tense() -> None:
    """``what did I do on Tuesday?`` is the latest Tuesday, ``what's on Tuesday?`` the next; a
    weekday asked about with neither tense, or as a habit or a range, names no day."""

    friday = date(2026, 12, 4)

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    tuesday = ["2026-12-01"]
    assert days("what did I do on Tuesday?") == days("周二做了什么？") == tuesday
    assert days("火曜日に何をした？") == days("화요일에 뭐 했어?") == tuesday
    assert days("周二的会上说了什么？") == days("礼拜二吃了什么") == tuesday
    assert days("What happened on Friday?") == ["2026-11-27"]  # not today: the one before
    assert days("what's on Tuesday?") == days("周二有什么安排？") == ["2026-12-08"]
    assert days("周五要做什么") == days("金曜日の予定は？") == ["2026-12-04"]  # today counts
    # a habit, a change, a range, a count, a plural, or no tense: no day
    for habit in (
        "what time is the standup on Tuesday?",
        "周二的例会几点开始？",
        "on-call 交接为什么从周一改到周二了？",
        "每周二开会吗",
        "毎週火曜の定例は何時だった？",
        "매주 화요일에 뭐 했어?",
        "what did we do on Tuesdays?",
        "what did I do on Monday and Tuesday?",
        "周一到周五做了什么",
        "月曜日から金曜日まで何をした？",
        "一周二次的会议取消了吗",
    ):
        assert days(habit) == [], habit
    # a weekday with its week or its date is read as that
    assert days("上周二做了什么") == ["2026-11-24"] and days("周五（9/4）做了什么") == ["--09-04"]
    # only in a question: a note's "周二" names no day
    assert [d for _, _, d in named_days("周二做了什么", friday)] == []


def test_a_year_a_question_names_is_each_of_its_days() -> None:
    """Last year, 去年, 2年前, in 2025, 2025年: every day of that year; not this year, nor a
    year that is part of a code, a date or a fiscal year."""

    friday = date(2026, 12, 4)

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    last = days("what did I do last year?")
    assert last[0] == "2025-01-01" and last[-1] == "2025-12-31" and len(last) == 365
    assert days("去年做了什么") == days("昨年") == days("작년에") == days("지난해") == last
    assert days("in 2025") == days("2025年做了什么") == days("1年前") == last
    before = days("the year before last")
    assert len(before) == 366 and before[0] == "2024-01-01"  # a leap year
    assert days("two years ago") == days("两年前") == days("前年") == days("2년 전") == before
    assert days("一昨年") == before
    september = [f"2025-09-{d:02d}" for d in range(1, 31)]
    assert days("2025年9月") == september  # a month of that year, not the year
    for other in ("今年的目标", "this year", "OPS-2025", "in 2025-09", "2024年度", "前年比"):
        assert days(other) == [], other
    # counted back only from a known today; a year named needs none
    assert [d for _, _, d in named_days("去年", None, question=True)] == []
    assert len(named_days("in 2025", None, question=True)) == 365


def test_english_date_words_written_straight_before_chinese() -> None:
    """Code-mixed questions put no space between an English date word and the Chinese after
    it; a Han character is a word character to ``\\b``, which took "yesterday的" for one word."""

    friday = date(2026, 12, 4)

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    assert days("yesterday的standup说了什么") == days("yesterday 的 standup") == ["2026-12-03"]
    assert days("3 days ago的事") == ["2026-12-01"] and days("last Friday的会") == ["2026-11-27"]
    assert days("Sep 3的会") == ["--09-03"] and days("on Tuesday做了什么") == ["2026-12-01"]
    assert days("last week的会议") == days("上周的会议")
    assert days("last weekend去哪了") == ["2026-11-28", "2026-11-29"]
    assert len(days("in September做了什么")) == 30 and len(days("in 2025做了什么")) == 365
    assert days("yesterday2") == []  # still a word's edge: a letter or digit goes on
    # in a note's heading too
    assert heading_date("Sep 3的会议", "2026-09-10") == "2026-09-03"


def test_the_weekends_a_note_names() -> None:
    def days(text: str, written: date) -> list[str]:
        return sorted({day for _, _, day in weekends_from(text, written)})

    thursday, monday, saturday = date(2026, 11, 12), date(2026, 11, 16), date(2026, 11, 14)
    this, last, after = (
        ["2026-11-14", "2026-11-15"],
        ["2026-11-07", "2026-11-08"],
        ["2026-11-21", "2026-11-22"],
    )
    # named from the note's day, as a question's are from today
    assert days("这个周末写初稿", thursday) == days("this weekend: hiking", thursday) == this
    assert days("上周末去了杭州", thursday) == days("先週末", thursday) == last
    assert days("下周末搬家", thursday) == days("来週末", thursday) == after
    # next weekend: the coming one or the one after, both (a question reads it as neither)
    assert days("next weekend", thursday) == [*this, *after]
    # alone, on a weekday: the one before when its clause says what was, the one after when
    # it says what will be, both when it says neither
    assert (
        days("周末 DAG fail 了 5 次", monday) == days("over the weekend it failed", monday) == this
    )
    assert days("剩下 3 个 job 周末已经迁完，19/19", thursday) == last
    assert days("周末再回她", thursday) == days("週末は美咲が上海に来る", thursday) == this
    assert days("we'll hike on the weekend", thursday) == this
    assert days("周末还是我 on-call", thursday) == [*last, *this]
    # a clause ends at a Chinese comma too; 完成 (to finish) says nothing of the past
    assert days("上周五发布了，周末再回她", thursday) == this
    assert days("周末完成初稿", thursday) == [*last, *this]
    assert days("주말에 뭐 해?", saturday) == days("周末", saturday) == this
    # a habit is no weekend: every weekend, 每个周末, 毎週末; nor are weekends
    for habit in (
        "every weekend",
        "每个周末都去",
        "毎週末ヨガ",
        "weekends",
        "매주 주말",
        "某个周末",
    ):
        assert days(habit, thursday) == [], habit
    # a note's days (named_days(single=True)) hold them; a question's read them as before
    assert [d for _, _, d in named_days("周末再回她", thursday, single=True)] == this
    assert named_days("周末再回她", thursday) == []


def test_the_days_of_a_range_a_question_names() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    first_five = [f"--09-0{d}" for d in range(1, 6)]
    # two days joined by a range's word: each day from the first to the last
    assert (
        days("9/1 到 9/5 做了什么？")
        == days("what did I do between Sep 1 and Sep 5?")
        == first_five
    )
    assert days("9月1日至9月5日的 standup") == days("from Sep 1 to Sep 5") == first_five
    assert days("9/1〜9/5 の作業は？") == days("9월 1일부터 9월 5일까지 뭐 했어?") == first_five
    # the last day of the same month, or a weekday of the same week
    assert days("9月1日到5日") == days("Sep 1–5") == first_five
    assert days("上周一到周三做了什么") == ["2026-11-23", "2026-11-24", "2026-11-25"]
    assert days("12/30 到 1/2") == ["--01-01", "--01-02", "--12-30", "--12-31"]
    # into the next year up to a 29 February: over a month, no range (it raised ValueError)
    assert days("12/30 到 2/29") == days("12月30日到2月29日") == ["--02-29", "--12-30"]
    # two days that make no range stay two days; a span over a month is no range
    assert days("9/1 和 9/5 哪天开的会") == days("Sep 1 and Sep 5") == ["--09-01", "--09-05"]
    assert days("1/1 到 3/1") == ["--01-01", "--03-01"] and days("9/1 到 10点") == ["--09-01"]
    # days counted back from today, today with them
    three = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    assert days("过去三天做了什么") == days("the last 3 days") == days("ここ3日") == three
    assert days("지난 3일") == days("past few days") == days("最近几天") == three
    assert days("最近一周") == days("the past week") == [f"2026-11-{d}" for d in range(23, 31)]
    assert days("这几天做了什么") == days("ここ数日は何をした？") == three
    assert days("9月3日这一天") == ["--09-03"]  # that very day
    assert days("last week") == [f"2026-11-{d}" for d in range(23, 30)]  # the calendar week
    # from a day named as a start up to today
    since = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    assert days("since last Friday") == days("since 2026-11-27") == since
    for text in (
        "what has happened since Nov 27?",
        "自11月27日以来",
        "11/27 以降の作業",
        "从11月27日开始",
        "11월 27일 이후",
        "11月27日起",
    ):
        assert [d for d in days(text) if not d.startswith("--")] == since, text
    assert days("since Dec 20") == ["--12-20"]  # December 2025: more than a month back
    # since a weekday: the latest before today (on Monday the 30th, the 24th)
    assert days("what changed since Tuesday?") == [f"2026-11-{d}" for d in range(24, 31)]
    assert days("周一以来做了什么") == [f"2026-11-{d}" for d in range(23, 31)]
    assert days("what happened Tuesday?") == []  # a weekday alone needs "on", or "since"
    # the week of a day: its calendar week, Monday to Sunday
    week_of_sep_9 = [f"2026-09-{d:02d}" for d in range(7, 14)]
    for text in (
        "the week of Sep 9",
        "9月9日那周做了什么？",
        "9/9 の週は何をした？",
        "9월 9일 주에",
    ):
        assert [d for d in days(text) if not d.startswith("--")] == week_of_sep_9, text
    assert days("9/9 주말") == days("9月9日周报") == ["--09-09"]
    assert days("11月27日起床") == ["--11-27"]  # got up, not since
    # a note's days: what it names one by one, no range
    assert [d for _, _, d in named_days("9/10 到 9/15 出差", monday, single=True)] == [
        "--09-10",
        "--09-15",
    ]


def test_the_beginning_middle_and_end_of_a_month() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    early = [f"--09-{d:02d}" for d in range(1, 11)]
    mid = [f"--09-{d}" for d in range(11, 21)]
    late = [f"--09-{d}" for d in range(21, 31)]
    assert days("9月初做了什么") == days("early September") == days("9月上旬") == early
    assert days("9월 초에 뭐 했어?") == days("the beginning of September") == early
    assert days("9월 초순") == early
    assert days("9月中旬") == days("mid-September") == days("in mid September") == mid
    assert days("9月底的 standup") == days("end of September") == days("late Sep") == late
    assert days("9月末の予定") == days("9月下旬") == days("9월 말에") == late
    end_of_october = [f"2026-10-{d}" for d in range(21, 32)]
    assert days("上个月底") == days("the end of last month") == end_of_october
    # the whole month without such a word: 9月中に is "during September", 9月初二 a lunar day
    whole = [f"--09-{d:02d}" for d in range(1, 31)]
    assert days("9月做了什么") == days("9月中に") == days("9月初二") == whole
    # the word is part of the span, so it is no term of the question
    ((start, end, _), *_) = named_days("9月底的 standup", monday, question=True)
    assert (start, end) == (0, 3)


def test_a_day_of_the_month_named_as_people_say_it() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    # the ordinal of a month, and Chinese numerals: that day, not the whole month or nothing
    assert days("what did I do on the 3rd of September?") == days("九月三日做了什么") == ["--09-03"]
    assert days("十一月二十号的会") == ["--11-20"] and days("九月三十一日") == []
    # a day of a month named from today
    assert days("上个月3号做了什么") == days("the 3rd of last month") == ["2026-10-03"]
    assert days("지난달 3일에 뭐 했어?") == days("先月3日は何をした？") == ["2026-10-03"]
    assert days("这个月的十五号") == days("this month on the 15th") == ["2026-11-15"]
    assert days("上个月31号") == ["2026-10-31"] and days("上个月的工作") == [
        f"2026-10-{d:02d}" for d in range(1, 32)
    ]
    # a day of the month alone: the latest such day up to today
    assert days("3号做了什么？") == days("what did I do on the 3rd?") == ["2026-11-03"]
    assert days("31号那天") == ["2026-10-31"] and days("十五号和老王吃饭") == ["2026-11-15"]
    # … not a line of the metro, a floor, a building, or a count
    for no_day in ("3号线坏了", "on the 3rd floor", "3号楼的会议室", "the 3rd time", "第3号方案"):
        assert days(no_day) == [], no_day
    # the day's words are one span: no term of the question
    ((start, end, _),) = named_days("上个月3号做了什么", monday, question=True)
    assert (start, end) == (0, 5)


def test_a_week_a_half_or_a_day_of_a_month() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    def sep(first: int, last: int) -> list[str]:
        return [f"--09-{d:02d}" for d in range(first, last + 1)]

    assert days("the first week of September") == days("9月第一周做了什么") == sep(1, 7)
    assert days("9月の第2週") == days("9월 둘째 주") == days("9月的第二个星期") == sep(8, 14)
    assert days("9月最后一周") == days("the last week of September") == sep(24, 30)
    assert days("9月の最終週") == days("9월 마지막 주") == sep(24, 30)
    assert days("9月上半月") == days("the first half of September") == sep(1, 15)
    assert days("9月の後半") == days("the second half of September") == sep(16, 30)
    assert (
        days("the last day of August") == days("8月最后一天") == days("8月の最終日") == ["--08-31"]
    )
    assert days("9月第一天") == days("9월 첫날") == ["--09-01"]
    # the nth or last of a weekday: the month as the latest such up to today
    assert days("the last Friday of October") == days("10月最后一个周五") == ["2026-10-30"]
    assert days("last Monday of October") == days("10月の最終月曜日") == ["2026-10-26"]
    assert days("9月第一个周一") == days("9月の第1月曜日") == ["2026-09-07"]
    # … of a month named from today too; and "last week" / "last Monday" there are no
    # week or day before this one
    assert (
        days("the last week of last month")
        == days("上个月最后一周")
        == [f"2026-10-{d}" for d in range(25, 32)]
    )
    assert days("what did I do last week?") == [f"2026-11-{d}" for d in range(23, 30)]
    assert days("last Monday") == ["2026-11-23"]


def test_a_holiday_a_question_names_by_its_tense() -> None:
    monday = date(2026, 11, 30)

    def days(text: str, today: date = monday) -> list[str]:
        return sorted({d for _, _, d in named_days(text, today, question=True)})

    national_day = [f"2026-10-0{d}" for d in range(1, 8)]
    assert days("国庆去哪玩了？") == days("十一假期去了哪") == national_day
    assert days("What did I do over the National Day holiday?") == national_day
    assert days("国庆有什么安排？", date(2026, 9, 20)) == national_day  # the next one
    assert days("万圣节那天做了什么") == days("ハロウィンに何をした？") == ["2026-10-31"]
    assert days("双十一买了什么") == ["2026-11-11"]
    assert days("圣诞节有什么安排？") == ["2026-12-24", "2026-12-25", "2026-12-26"]
    assert days("what did I do over Christmas?") == ["2025-12-24", "2025-12-25", "2025-12-26"]
    assert days("元旦有什么计划") == ["2027-01-01"] and days("元旦做了什么") == ["2026-01-01"]
    # a habit names no day; nor does a street, or November
    assert days("国庆一般去哪？") == [] and days("五一路那家店做了什么") == []
    assert days("Which train does Mo take for the National Day holiday?") == []
    # the lunar ones, from the table of their days
    assert (
        days("中秋节做了什么？")
        == days("추석에 뭐 했어?")
        == [
            "2026-09-24",
            "2026-09-25",
            "2026-09-26",
        ]
    )
    assert days("春节回家了吗？") == [f"2026-02-{d}" for d in range(16, 24)]  # 除夕 to 初六
    assert days("春节有什么安排？")[0] == "2027-02-05" and days("除夕夜吃了什么？") == [
        "2026-02-16"
    ]
    assert days("端午节有什么计划", date(2026, 5, 1)) == ["2026-06-18", "2026-06-19", "2026-06-20"]
    assert days("春节做了什么", date(2036, 6, 1)) == []  # a year the table does not hold
    assert days("中秋一般怎么过") == [] and days("What do we usually do at Christmas?") == []
    # nor a weekend, weekday or day of the month asked about as a rule, though 过 reads as past
    assert days("周末一般怎么过") == [] and days("周二一般几点开会了") == []
    assert days("15号一般做什么") == [] and days("周末怎么过的？") == ["2026-11-28", "2026-11-29"]
    # months in Chinese numerals
    assert days("十一月做了什么") == [f"--11-{d:02d}" for d in range(1, 31)]
    assert days("九月份的工作") == [f"--09-{d:02d}" for d in range(1, 31)]
    assert days("一个月做了什么") == []


def test_days_a_question_names_loosely() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    couple = ["2026-11-27", "2026-11-28", "2026-11-29"]
    few = [f"2026-11-{d}" for d in range(23, 30)]
    assert days("前两天做了什么") == days("a couple of days ago") == days("我前两天买的") == couple
    assert days("两三天前做了什么？") == couple
    assert days("前几天做了什么") == days("几天前做了什么") == days("the other day") == few
    assert days("a few days ago") == days("数日前に何をした？") == days("며칠 전에 뭐 했어?") == few
    # 上线前两天: the two days before the launch, not before today; 三十几天前 no few days
    assert days("上线前两天做了什么") == [] and days("三十几天前") == []
    # a year back: that day, or a week either side of it; 去年 alone is the year
    assert days("去年的今天") == days("a year ago today") == ["2025-11-30"]
    year_ago = [f"2025-11-{d}" for d in range(23, 31)] + [f"2025-12-0{d}" for d in range(1, 8)]
    assert days("this time last year") == days("去年这个时候在忙什么") == year_ago
    assert len(days("去年做了什么")) == 365
    # the past weekend is the last one
    assert days("what did I do over the past weekend?") == ["2026-11-28", "2026-11-29"]
    assert days("this past weekend") == days("last weekend")


def test_days_of_a_month_at_its_edges() -> None:
    """Found in review: each was a crash, a wrong day, or no day where one was named."""

    def days(text: str, today: date) -> list[str]:
        return sorted({d for _, _, d in named_days(text, today, question=True)})

    # no 29 February in 2026: the weekdays of February raised ValueError
    assert days("the last Friday of February?", date(2026, 3, 30)) == ["2026-02-27"]
    assert days("二月第四个周日做了什么", date(2026, 3, 30)) == ["2026-02-22"]
    # "last week" / "last Friday" before "in the standup" or "in Tokyo" are still days
    assert days("What did I do last Tuesday in the morning?", date(2026, 11, 10)) == ["2026-11-03"]
    assert len(days("What did we decide last week in the standup?", date(2026, 11, 10))) == 7
    assert named_days("Met Alice last Friday in Tokyo.", date(2026, 11, 30), single=True) == [
        (10, 21, "2026-11-27")
    ]
    # this month's end is its end, though "this month" alone stops at today
    jan10 = date(2026, 1, 10)
    assert days("这个月最后一天有什么安排？", jan10) == ["2026-01-31"]
    assert days("the second half of this month?", jan10)[0] == "2026-01-16"
    assert days("这个月做了什么", jan10)[-1] == "2026-01-10"
    # the second day is the second, not the last
    assert days("the second day of September?", date(2026, 11, 30)) == ["--09-02"]
    # a Japanese last Friday of a month is no Friday alone; a Korean week takes its particle
    assert days("10月の最終金曜日に何をした？", date(2026, 11, 30)) == ["2026-10-30"]
    assert days("9월 첫째 주에 뭐 했어?", date(2026, 11, 30)) == [f"--09-0{d}" for d in range(1, 8)]
    # a bare day by tense, in the nearest month that has it
    assert days("15号有什么计划？", date(2026, 11, 10)) == ["2026-11-15"]
    assert days("31号做了什么？", date(2026, 10, 15)) == ["2026-08-31"]
    # a range in a month named from today stays the month; の, and no 三日游 or 3일간
    assert len(days("上个月3号到5号做了什么？", date(2026, 11, 10))) == 31
    assert days("先月の3日に何をした？", date(2026, 11, 10)) == ["2026-10-03"]
    assert len(days("上个月三日游去了哪里？", date(2026, 11, 30))) == 31
    # titles, idioms and places are no months or holidays
    for no_day in ("五月天的演唱会去过吗？", "十月怀胎的书看过吗？", "五一广场去过吗？",
                   "白色情人节送了什么？", "圣诞老人的衣服买了吗？", "Christmas tree was bought?",
                   "Did I say I may day-trip to Kyoto?"):  # fmt: skip
        assert days(no_day, date(2026, 11, 30)) == [], no_day


def test_the_part_of_a_day_a_question_names() -> None:
    def hours(text: str) -> tuple[int, int] | None:
        part = part_of_day(text)
        return part.hours if part else None

    morning, afternoon, evening = (5, 12), (12, 18), (17, 24)
    assert hours("9月3日上午做了什么") == hours("9/3 の朝は何をした") == morning
    assert hours("the morning of Sep 3") == hours("9월 3일 오전") == morning
    assert hours("昨天下午开会说了什么") == hours("yesterday afternoon") == afternoon
    assert hours("9/3 の午後") == afternoon and hours("中午吃了什么") == (11, 14)
    assert hours("昨晚做了什么") == hours("what did I do last night?") == evening
    assert hours("10 月 27 号晚上") == hours("어젯밤에") == hours("9/3 の夜は") == evening
    # none, or two: no part of the day
    for text in ("9月3日做了什么", "早上和晚上都", "9月3日去朝阳区", "how many nights on Sep 22"):
        assert part_of_day(text) is None, text
    # an hour by the clock: that hour to the next; a working day's 3点 is at 15:00
    assert hours("what did I do at 3pm on Sep 3?") == hours("9月3日下午3点在做什么") == (15, 16)
    assert hours("9/3 の午後3時") == hours("9월 3일 오후 3시") == hours("3点的会") == (15, 16)
    assert hours("at 14:30 on Sep 3") == hours("下午两点半") == hours("at 2:30") == (14, 15)
    assert hours("10:30 a.m. on Sep 3") == (10, 11)
    assert hours("十点半的会") == (10, 11) and hours("9点开会") == (9, 10)
    # a count is no hour: 三点意见, 我有3点建议, 第3点
    for text in ("他提了三点意见", "我有3点建议", "第3点"):
        assert part_of_day(text) is None, text
    # last night, 昨晚, 今早 … are days too
    monday = date(2026, 11, 30)
    for text, day in (
        ("昨晚做了什么", "2026-11-29"),
        ("last night", "2026-11-29"),
        ("今早的 standup", "2026-11-30"),
        ("this afternoon", "2026-11-30"),
    ):
        assert [d for _, _, d in named_days(text, monday, question=True)] == [day], text
    # a timed entry's hour: a heading or a list item opening with its time
    text = "### 14:30 - deploy\nat 10:00 we met\n- 09:30 standup\n- [x] 18:05 done\n| 10:00 |"
    assert entry_hours(text) == [14, 9, 18]
