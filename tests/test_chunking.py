"""Chunking conformance (spec §2, §15 cases 69–70), the fixes to upstream's quirks, and
structure-aware chunking: heading sections, heading paths and dates (issue #11)."""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC
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
