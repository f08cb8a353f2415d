"""Keyword scores mean the same in a two-file workspace and a large one (memdir's calibration,
replacing upstream's r/(1+r), which collapses to ~0 in small corpora and ~1 in large ones)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memdir import Memory
from memdir.search import keyword
from memdir.search.keyword import (
    QueryProfile,
    code_terms,
    coverage_score,
    fts5_idf,
    is_code,
    presence_idf,
    query_profile,
)
from memdir.text import fts_query_terms
from memdir.text.stopwords import STOP_WORDS

from .helpers import write_notes


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# Memory\n\nAlpha project uses PostgreSQL.\nAlice likes tea.\n"
    )
    (tmp_path / "memory" / "2026-01-02.md").write_text("Alice reviewed the Beta release notes.\n")
    return tmp_path


def _search(ws: Path, query: str, **kw: object) -> list[tuple[str, float]]:
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        return [(h.path, h.score) for h in mem.search(query, **kw)]  # type: ignore[arg-type]


def test_case_61_two_file_workspace_finds_a_word_at_the_default_floor(tiny: Path) -> None:
    hits = _search(tiny, "Alpha")
    assert hits and hits[0][0] == "MEMORY.md"
    assert hits[0][1] >= 0.35


def test_case_61_unknown_keyword_finds_nothing(tiny: Path) -> None:
    assert _search(tiny, "nonexistent_xyz_keyword") == []


def test_query_about_something_never_mentioned_returns_nothing(tiny: Path) -> None:
    # "Alice" is in every file, so it carries no information; "coffee" is nowhere. Even in
    # a memory this small, where a lacked word tells little, it keeps LEAST_TOLD of its weight
    # in keyword search alone.
    assert _search(tiny, "Alice coffee") == []


def test_scores_rank_full_matches_above_partial_ones(tiny: Path) -> None:
    hits = _search(tiny, "Beta release", min_score=0.0)
    assert hits[0][0] == "memory/2026-01-02.md"
    assert hits[0][1] > 0.9


def test_idf_and_coverage() -> None:
    assert fts5_idf(100, 10) == pytest.approx(2.1540, abs=1e-3)  # ln(90.5 / 10.5)
    assert fts5_idf(4, 3) == 1e-6  # FTS5's floor for terms in most rows
    assert coverage_score(-2.0, 4.0) == 0.5
    assert 0.99 < coverage_score(-9.0, 4.0) < 1.0  # squashed towards 1 above the knee
    assert (
        coverage_score(-4.0, 4.0) < coverage_score(-5.0, 4.0) < coverage_score(-9.0, 4.0)
    )  # order kept
    assert coverage_score(-3.2, 4.0) == pytest.approx(0.8)
    assert coverage_score(float("nan"), 4.0) == 0.0
    assert coverage_score(-1.0, 0.0) == 0.0


def test_presence_idf_is_smoothed_never_floored() -> None:
    assert presence_idf(100, 10) == pytest.approx(2.2634, abs=1e-3)  # ln(1 + 90.5 / 10.5)
    assert presence_idf(2, 1) == pytest.approx(0.6931, abs=1e-3)  # ln 2, where FTS5 has 1e-6
    assert presence_idf(4, 4) > 0
    assert presence_idf(2, 0) > presence_idf(2, 1) > presence_idf(2, 2)
    assert presence_idf(0, 0) == 0.0


@pytest.fixture
def two_notes(tmp_path: Path) -> Path:
    return write_notes(
        tmp_path,
        {
            "memory/2026-11-30.md": "# Notes\n\n### 10:00 - OPS-4411\n"
            "OPS-4411: the relay pool leak is fixed by raising max_conns and adding a watchdog.\n",
            "MEMORY.md": "# Memory\n\n- We use Postgres 16 for ledger.\n"
            "- Relay uses NATS JetStream now.\n",
        },
    )


def test_a_new_users_two_notes_answer_a_chinese_question_about_a_ticket(two_notes: Path) -> None:
    # Issue #11 item 7, in a memory of two notes: the ticket is in half of them, where FTS5's
    # IDF is floored at 1e-6, and 进展 is nowhere. Keyword search printed "No matches."
    hits = _search(two_notes, "OPS-4411 的进展")
    assert [p for p, _ in hits] == ["memory/2026-11-30.md"]
    assert hits[0][1] >= 0.35
    # ... while a question about something memory never mentions still finds nothing
    assert _search(two_notes, "巴黎的天气怎么样") == []


def test_a_missing_cjk_word_counts_once(two_notes: Path) -> None:
    with Memory(two_notes, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "OPS-4411 的进展")
        assert profile is not None
        # 进 and 展 are nowhere either: the missing word is its bigram, not three terms
        assert set(profile.weights) == {"ops 4411", "进展"}
        assert profile.absent == ("进展",)
        # ... and tells nothing: no note is written in Chinese, where 进展 would be
        assert profile.absent_share == 0.0


def _profile_of(root: Path, files: dict[str, str], query: str) -> QueryProfile:
    with Memory(write_notes(root, files), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, query, stopwords=STOP_WORDS)
        assert profile is not None
        return profile


def test_a_word_memory_lacks_tells_as_much_as_memory_writes_its_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same fact in a memory written mostly in English and in one written mostly in
    # Japanese. "expire" is in neither: where notes are in English that says the fact is
    # missing, where they are in Japanese it would be written 期限 and says next to nothing.
    # (Memories this small lack most words; counted as if they were large enough here, see
    # the next test.)
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)
    query = "When does my residence permit expire?"
    english = "\n".join(f"- note {i}: lunch with the team, then a review." for i in range(8))
    japanese = "\n".join(f"- メモ{i}：チームでランチ、そのあとレビュー。" for i in range(8))
    fact_en = "- Residence permit: valid until 2027-03-31.\n"
    fact_ja = "- 在留カード（residence permit）の期限は 2027-03-31。\n"
    in_english = _profile_of(
        tmp_path / "en", {"MEMORY.md": fact_en + english + "\n- 在留カード\n"}, query
    )
    in_japanese = _profile_of(tmp_path / "ja", {"MEMORY.md": fact_ja + japanese + "\n"}, query)
    for profile in (in_english, in_japanese):
        assert profile.absent == ("expire",)
    weights = in_english.weights
    held = weights["residence"] + weights["permit"]
    # 9 English lines against 1 Japanese one: the lack tells in full
    assert in_english.absent_share == pytest.approx(weights["expire"] / (held + weights["expire"]))
    # 0 English lines against 9 Japanese ones (the fact's line is Japanese too): nothing
    assert in_japanese.absent_share == 0.0
    # one English line in ten: a tenth as much as in the English memory's share
    mixed = _profile_of(
        tmp_path / "mixed",
        {"MEMORY.md": fact_ja + japanese + "\n- the review moved to Friday.\n"},
        query,
    )
    w = mixed.weights
    telling = w["expire"] * (1 / 9)
    assert mixed.absent_share == pytest.approx(telling / (w["residence"] + w["permit"] + telling))


def test_a_name_memory_never_uses_halves_keyword_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PayPal, capitalised mid-sentence, is what the question is about; the note holds its
    # other words. Lower-cased, the same word is one word memory lacks among several it has.
    # (Counted as a memory that has written enough for a lacked word to tell in full: in one
    # of four lines, the lack tells a quarter, and the halved score still clears the floor.)
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# Memory\n\n- ledger moved its card payments to Stripe, the payment provider.\n"
    )
    for i, text in enumerate(["tea with lemon", "the mill opens at nine", "a river trip"]):
        (tmp_path / "memory" / f"n{i}.md").write_text(text + "\n")
    named = _search(tmp_path, "Did ledger move card payments to PayPal?", min_score=0.0)
    plain = _search(tmp_path, "Did ledger move card payments to paypal?", min_score=0.0)
    assert named[0][0] == plain[0][0] == "MEMORY.md"
    assert named[0][1] == pytest.approx(plain[0][1] / 2)
    assert _search(tmp_path, "Did ledger move card payments to PayPal?") == []
    assert [p for p, _ in _search(tmp_path, "Did ledger move card payments to paypal?")] == [
        "MEMORY.md"
    ]


def _lacks(tmp_path: Path, memory: str, queries: list[str]) -> list[bool]:
    """:attr:`QueryProfile.lacks_a_name` of each query against a MEMORY.md of ``memory``."""
    (tmp_path / "MEMORY.md").write_text(memory)
    with Memory(tmp_path, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profiles = [query_profile(mem.index, q, stopwords=STOP_WORDS) for q in queries]
    return [p is not None and p.lacks_a_name for p in profiles]


def test_an_identifier_memory_lacks_is_a_lacked_name(tmp_path: Path) -> None:
    memory = (
        "# Memory\n\n- The Q3 target for the ledger error rate is 0.1%.\n"
        "- Relay runs on NATS.\n- Tea with lemon.\n"
    )
    queries = {
        "What is the Q2 target for the ledger error rate?": True,
        "What is the Q3 target for the ledger error rate?": False,
        "What was the ledger error rate target for PayPal?": True,
        "What was the ledger error rate target for paypal?": False,
        "What is the target in Oct for the ledger error rate?": False,
    }
    assert _lacks(tmp_path, memory, list(queries)) == list(queries.values())


def test_an_identifier_memory_lacks_is_lacked_whatever_the_script_of_the_question(
    tmp_path: Path,
) -> None:
    memory = (
        "# 错误码\n\n| 码 | 名字 |\n|---|---|\n| 0x80AB | `RELAY_E_POOL_EXHAUSTED` 连接池耗尽 |\n"
        "| 0x80C3 | `RELAY_E_TLS_HANDSHAKE` 证书过期 |\n"
    )
    queries = {
        # no other Latin-script word: a name may be written in Chinese here, an identifier not
        "`RELAY_E_QUOTA_EXCEEDED` 对应哪个错误码？": True,
        "`RELAY_E_POOL_EXHAUSTED` 对应哪个错误码？": False,
        "Stripe 对应哪个错误码？": False,
        # a hyphenated compound or a score is no code: a Chinese note writes it in Chinese
        "well-known 错误码？": False,
        "24-10 的错误码？": False,
    }
    assert _lacks(tmp_path, memory, list(queries)) == list(queries.values())


@pytest.mark.parametrize(
    ("written", "code"),
    [
        ("RELAY_E_QUOTA_EXCEEDED", True),
        ("0x80AB", True),
        ("v1.13.2", True),
        ("OPS-1234", True),
        ("X.25", True),
        ("qc-tokens.wxss", True),
        ("deploy/relay/values.yaml", True),
        ("max_tokens=8192", True),
        ("Q2", True),
        ("ch-atlas-01", True),
        ("SHP-2", True),
        ("on-call", False),
        ("Shanghai-date", False),
        ("African-Americans", False),
        ("2-point", False),
        ("24-10", False),
        ("3rd", False),
        ("1700s", False),
        ("interleukin-2", False),
        ("1/2", False),
        ("nmol/liter", False),
    ],
)
def test_a_code_is_told_from_a_hyphenated_word(written: str, code: bool) -> None:
    assert is_code(written) is code
    assert code_terms(f"what about {written}?", fts_query_terms(written)) == (
        set(fts_query_terms(written)) if code else set()
    )


def test_an_identifier_written_otherwise_is_no_lacked_name(tmp_path: Path) -> None:
    memory = (
        "# Memory\n\n- Histones are degraded in a manner dependent on Rad53 kinase.\n"
        "- Ticket OPS 1200 was about a full disk; 9999 is the test PIN.\n- Tea with lemon.\n"
    )
    queries = {
        # memory holds Rad53, the word of the identifier that mixes letters and digits: the
        # compound is written otherwise, not unknown (SciFact: "a Rad53-dependent mechanism")
        "Are histones degraded by a Rad53-dependent mechanism?": False,
        "Are histones degraded by a Mec1-dependent mechanism?": True,
        # "ops" and "9999" are held apart, yet the ticket is unknown
        "What was the ticket OPS-9999 about, the disk?": True,
    }
    assert _lacks(tmp_path, memory, list(queries)) == list(queries.values())


def _x509_workspace(root: Path) -> Path:
    """A long log entry naming x509 once, and short notes about other things' 负责人."""
    log = "\n".join(
        f"2026-10-03T08:0{i}:17+08:00 WARN relay-worker-5c8d broker=nats retry={i} backoff={i}s"
        for i in range(8)
    )
    notes = {
        "memory/2026-10-03.md": (
            "# 2026-10-03\n\n### 08:30 - TLS 错误\n日志里全是 TLS 错误：\n```\n"
            + log
            + "\n2026-10-03T08:09:02+08:00 ERROR tls: failed to verify certificate: x509: "
            "certificate has expired\n```\n证书过期了，换了新的。\n"
        ),
    }
    for i, thing in enumerate(["账单", "周报", "招聘", "值班", "预算"]):
        notes[f"memory/topics/t{i}.md"] = f"{thing}的负责人是老王，负责人周一同步。\n"
    for i in range(30):  # the rest of memory: daily logs as long as the entry naming x509
        notes[f"memory/2026-09-{i + 1:02d}.md"] = "\n".join(
            f"- {9 + j}:00 第 {i} 天第 {j} 件事：写代码，review PR #{100 * i + j}，开会，吃饭。"
            for j in range(8)
        )
    return write_notes(root, notes)


def test_an_identifier_weighs_twice_in_bm25_as_in_the_presence_share(tmp_path: Path) -> None:
    """BM25 sums over the phrases of the MATCH expression, so the identifier stands there
    twice and counts twice in BM25's mass: counted once, a long entry naming ``x509`` once
    scored far under short notes about other things' 负责人 (whose terms 负责, 责人, 负, 责, 人
    each hold the common word again) on BM25's half of the keyword score."""
    import dataclasses

    from memdir.search.keyword import IDENTIFIER_WEIGHT, keyword_search

    ws = _x509_workspace(tmp_path / "ws")
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        index = mem.index
        query = "x509 的负责人是谁"
        profile = query_profile(index, query, stopwords=STOP_WORDS)
        assert profile is not None
        assert profile.match.count('"x509"') == IDENTIFIER_WEIGHT
        total, dfs = index.term_dfs(profile.terms)
        idf = {t: fts5_idf(total, dfs[t]) for t in profile.terms}
        assert profile.bm25_mass == pytest.approx(sum(idf.values()) + idf["x509"])
        once = dataclasses.replace(
            profile,
            match=profile.match.replace(' OR "x509"', "", 1),
            bm25_mass=sum(idf.values()),
        )
        assert once.match.count('"x509"') == 1

        def scores(p: object) -> dict[str, float]:
            rows = keyword_search(index, query, 10, profile=p)  # type: ignore[arg-type]
            return {row.chunk.path: score for row, score in rows}

        twice, single = scores(profile), scores(once)
    assert twice["memory/2026-10-03.md"] > single["memory/2026-10-03.md"] + 0.05
    assert twice["memory/topics/t0.md"] < single["memory/topics/t0.md"]


def test_keyword_search_answers_a_question_about_a_code_from_the_note_naming_it(
    tmp_path: Path,
) -> None:
    """The notes naming none of the question's codes count half in keyword search too
    (:data:`memdir.search.engine.UNNAMED_CODE_FACTOR`)."""
    from memdir.search.engine import UNNAMED_CODE_FACTOR

    ws = _x509_workspace(tmp_path / "ws")
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        hits = mem.search("x509 的负责人是谁", mode="keyword", min_score=0.0)
    assert hits[0].path == "memory/2026-10-03.md"
    assert hits[0].score == pytest.approx(hits[0].text_score)
    others = hits[1:]
    assert others and all(h.path.startswith("memory/topics/") for h in others)
    assert all(h.score == pytest.approx(UNNAMED_CODE_FACTOR * h.text_score) for h in others)


def _daily_logs(root: Path) -> Path:
    """Three weeks of daily logs, each day a standup, a lunch and a piece of work."""
    notes = {}
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
    ]
    for day in range(3, 24):
        a, b = words[day % len(words)], words[(day * 5) % len(words)]
        notes[f"memory/2026-08-{day:02d}.md"] = (
            f"# 2026-08-{day:02d}\n\n### 09:30 - standup\n{a} in review, nothing blocking\n\n"
            f"### 12:30 - lunch\nramen with {b}\n\n"
            f"### 15:00 - work\nrefactored the {a} module, {b} tests green\n"
        )
    notes["MEMORY.md"] = "# Memory\n\n- standup is at 09:30 every day\n"
    return write_notes(root, notes)


@pytest.mark.parametrize(
    "question",
    ["what was the standup about on Aug 4?", "8月4日的 standup 说了什么？", "Aug 4 standup"],
)
def test_a_question_naming_a_day_is_answered_from_that_days_notes(
    tmp_path: Path, question: str
) -> None:
    """The day counts as a term the chunks dated that day hold (in BM25's share too), and its
    words are no terms: every day has a standup, and the notes write no "Aug" or "4" (their
    dates say 08-04). Before, another day's standup came first."""
    ws = _daily_logs(tmp_path / "ws")
    hits = _search(ws, question, mode="keyword")
    assert hits and hits[0][0] == "memory/2026-08-04.md"
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        first = mem.search(question, mode="keyword")[0]
    assert first.start_line == 3 and first.date == "2026-08-04"  # the standup entry itself


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("8/4 的 standup 说了什么？", "2026-08-04"),
        ("what happened on 8/4?", "2026-08-04"),
        ("8/12 做了什么？", "2026-08-12"),
        ("what happened on 8/12?", "2026-08-12"),
    ],
)
def test_a_question_naming_a_day_as_month_slash_day_is_answered_from_that_days_notes(
    tmp_path: Path, question: str, day: str
) -> None:
    """People write a day as ``8/4`` in questions. Of one digit each it was no day (as it is
    none in a note: ``Phase 1/2``), so another day's standup came first. A note writing the
    day (``8/12``) does not come before the day's own log (that ``8/12`` is no identifier
    asked about is checked in ``test_recency``)."""
    ws = _daily_logs(tmp_path / "ws")
    (ws / "memory" / "projects").mkdir()
    (ws / "memory" / "projects" / "kickoff.md").write_text(
        "# kickoff\n\n- 8/12 做了 kickoff 的准备; what happened: 8/12 ramen with the team\n",
        encoding="utf-8",
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", today=date(2026, 8, 24))
        assert found.results and found.results[0].date == day
        assert {r.date for r in found.results[:3]} == {day}


def test_a_question_that_is_only_a_day_lists_that_days_entries(tmp_path: Path) -> None:
    ws = _daily_logs(tmp_path / "ws")
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        found = mem.search("what did I do on Aug 4?", mode="keyword")
    assert found.results and {r.date for r in found.results} == {"2026-08-04"}
    assert [r.start_line for r in found.results] == [3, 6, 9]  # in the day's order


def test_a_day_no_note_is_dated_is_found_where_a_note_names_it(tmp_path: Path) -> None:
    """A store of undated paragraphs writes its dates in the text: the paragraph naming the
    day holds it; a day no note is dated or names is searched as its words."""
    ws = write_notes(
        tmp_path / "ws",
        {
            "memory/docs/a.md": "On May 7, 1945 Germany signed the surrender at Reims.\n",
            "memory/docs/b.md": "Reims is a city in the Champagne region.\n",
            "memory/docs/c.md": "In 1945 the war in Europe ended on 8 May.\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "what happened on May 7, 1945 at Reims?")
        assert profile is not None and profile.days == ("1945-05-07",)
        assert [row.chunk.path for row in profile.naming] == ["memory/docs/a.md"]
        hits = mem.search("what happened on May 7, 1945 at Reims?", mode="keyword")
        assert hits.results[0].path == "memory/docs/a.md"
        profile = query_profile(mem.index, "what happened on June 6, 1944 in Normandy?")
        assert profile is not None and profile.days == () and "1944" in profile.terms


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("what was the standup about yesterday?", "2026-08-14"),
        ("昨天的 standup 说了什么？", "2026-08-14"),
        ("前天和谁吃的午饭？", "2026-08-13"),
        ("what did I do last Monday?", "2026-08-10"),
        ("上周三做了什么？", "2026-08-05"),
        ("what's the plan for tomorrow?", "2026-08-16"),
        ("明天的 standup 说什么？", "2026-08-16"),
        ("下周三有什么安排？", "2026-08-19"),
        ("what did I do 3 days ago?", "2026-08-12"),
        ("三天前做了什么？", "2026-08-12"),
        ("이틀 전에 뭐 했어?", "2026-08-13"),
    ],
)
def test_a_question_naming_a_day_from_today_is_answered_from_that_days_notes(
    tmp_path: Path, question: str, day: str
) -> None:
    """Asked on Saturday 2026-08-15 (``today``), yesterday is the 14th."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", today=date(2026, 8, 15))
        assert found.results and found.results[0].date == day


@pytest.mark.parametrize(
    "question", ["what did I do two weeks ago?", "上上周做了什么？", "先々週は？"]
)
def test_a_question_naming_the_week_before_last_is_answered_from_that_weeks_notes(
    tmp_path: Path, question: str
) -> None:
    """Asked on Wednesday 2026-08-19: two weeks ago, the week before last, is 3-9 August (上上周
    was last week, 10-16 August)."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(
            question, mode="keyword", max_results=6, min_score=0.0, today=date(2026, 8, 19)
        )
        assert len(found.results) == 6
        assert {r.date for r in found.results} <= {f"2026-08-{d:02d}" for d in range(3, 10)}


@pytest.mark.parametrize(
    ("question", "week"),
    [
        ("what did I do last week?", {f"2026-08-{d:02d}" for d in range(3, 10)}),
        ("上周做了什么？", {f"2026-08-{d:02d}" for d in range(3, 10)}),
        ("先週のランチは？", {f"2026-08-{d:02d}" for d in range(3, 10)}),
        ("this week's standups", {f"2026-08-{d:02d}" for d in range(10, 13)}),
        ("下周有什么安排？", {f"2026-08-{d:02d}" for d in range(17, 24)}),
        ("what's on next week?", {f"2026-08-{d:02d}" for d in range(17, 24)}),
    ],
)
def test_a_question_naming_a_week_from_today_is_answered_from_that_weeks_notes(
    tmp_path: Path, question: str, week: set[str]
) -> None:
    """Asked on Wednesday 2026-08-12: last week is 3-9 August, this week 10-12 August."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(
            question, mode="keyword", max_results=6, min_score=0.0, today=date(2026, 8, 12)
        )
        assert len(found.results) == 6 and {r.date for r in found.results} <= week
        # a week memory has no note of is searched as its words, as before
        profile = query_profile(mem.index, question, stopwords=STOP_WORDS, today=date(2027, 1, 1))
        assert profile is None or profile.days == ()


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("8/10 到 8/12 做了什么？", date(2026, 8, 20)),
        ("what did I do between Aug 10 and Aug 12?", date(2026, 8, 20)),
        ("8月10日到12日的 standup", date(2026, 8, 20)),
        ("过去两天做了什么？", date(2026, 8, 12)),
        ("what did I do in the past 2 days?", date(2026, 8, 12)),
        ("what have I done since Aug 10?", date(2026, 8, 12)),
        ("8月10日以来做了什么？", date(2026, 8, 12)),
    ],
)
def test_a_question_naming_a_range_of_days_is_answered_from_each_days_notes(
    tmp_path: Path, question: str, today: date
) -> None:
    """Each day of the range, not its two ends alone: the 11th was searched as no day."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", max_results=9, min_score=0.0, today=today)
        assert {r.date for r in found.results} == {"2026-08-10", "2026-08-11", "2026-08-12"}


@pytest.mark.parametrize(
    ("question", "today"),
    [("过去三天做了什么？", date(2026, 8, 13)), ("what did I do between Aug 10 and Aug 12?", None)],
)
def test_a_busy_day_does_not_fill_the_first_results_of_a_range(
    tmp_path: Path, question: str, today: date | None
) -> None:
    """Its eight entries matched as well as the other days' and came first, in date order."""
    ws = _daily_logs(tmp_path / "ws")
    entries = "".join(f"### {h}:10 - task {h}\nworked on item {h}\n\n" for h in range(10, 18))
    write_notes(ws, {"memory/2026-08-10.md": f"# 2026-08-10\n\n{entries}"})
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", max_results=3, min_score=0.0, today=today)
        assert {r.date for r in found.results} == {"2026-08-10", "2026-08-11", "2026-08-12"}


@pytest.mark.parametrize("question", ["what did I do on Aug 10?", "8月10日做了什么？"])
def test_the_days_log_is_among_the_first_results_beside_a_long_note_of_that_day(
    tmp_path: Path, question: str
) -> None:
    """The five sections of the day's cutover notes matched as well as its log and filled the
    first three (their path sorts first)."""
    ws = _daily_logs(tmp_path / "ws")
    sections = "".join(f"## Step {n}\nstep {n} of the cutover went fine\n\n" for n in range(5))
    write_notes(ws, {"memory/2026-08-10-cutover.md": f"# Cutover, 2026-08-10\n\n{sections}"})
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(
            question, mode="keyword", max_results=3, min_score=0.0, today=date(2026, 8, 20)
        )
        paths = [r.path for r in found.results]
        assert "memory/2026-08-10.md" in paths and "memory/2026-08-10-cutover.md" in paths


@pytest.mark.parametrize(
    "question", ["8月15日有什么安排？", "what's on Aug 15?", "这个周末有什么安排？"]
)
def test_a_day_still_to_come_is_answered_by_the_latest_plan_written_by_today(
    tmp_path: Path, question: str
) -> None:
    """Every note naming the day matched alike, and a runbook naming it in passing came first."""
    logs = {
        f"memory/2026-08-{d:02d}.md": f"# 2026-08-{d:02d}\n\n### 09:30 - standup\nnothing new\n"
        for d in range(3, 13)
    }
    ws = write_notes(
        tmp_path / "ws",
        {
            **logs,
            "memory/2026-08-05.md": "# 2026-08-05\n\n- 8/15（周六）可能要加班\n",
            "memory/2026-08-11.md": "# 2026-08-11\n\n- 8/15（周六）改成去爬山，不加班了\n",
            "memory/2026-08-13.md": "# 2026-08-13\n\n- 8/15（周六）下雨，爬山取消\n",
            "memory/runbooks/backfill.md": (
                "# backfill\n\nThe last backfill covered 2026-08-01 to 2026-08-15 in one run.\n"
            ),
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        # asked on Wednesday the 12th: the 13th's note is not written yet in this replay
        found = mem.search(
            question, mode="keyword", max_results=3, min_score=0.0, today=date(2026, 8, 12)
        )
        assert found.results[0].path == "memory/2026-08-11.md"
        # a day still to come that a note is of (written ahead, or replayed): that note
        found = mem.search(
            "明天有什么安排？", mode="keyword", min_score=0.0, today=date(2026, 8, 12)
        )
        assert found.results[0].path == "memory/2026-08-13.md"


@pytest.mark.parametrize(
    ("question", "part"),
    [
        ("8月上旬做了什么？", range(3, 11)),
        ("what did I do in mid-August?", range(11, 21)),
        ("8月底的 standup", range(21, 24)),
        ("what was the standup about at the end of August?", range(21, 24)),
    ],
)
def test_a_question_naming_part_of_a_month_is_answered_from_that_parts_notes(
    tmp_path: Path, question: str, part: range
) -> None:
    """The beginning, middle or end of a month (days 1-10, 11-20, 21-31), not all of it."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", max_results=3, min_score=0.0)
        assert len(found.results) == 3
        assert {r.date for r in found.results} <= {f"2026-08-{d:02d}" for d in part}


@pytest.mark.parametrize(
    ("question", "today", "first"),
    [
        ("8月10日上午做了什么？", date(2026, 8, 20), 3),  # the 09:30 standup
        ("what did I do on the afternoon of Aug 10?", date(2026, 8, 20), 6),  # 12:30 lunch
        ("what did I do yesterday afternoon?", date(2026, 8, 11), 6),
        ("what was I doing at 3pm on Aug 10?", date(2026, 8, 20), 9),  # the 15:00 work
        ("8月10日下午3点在做什么？", date(2026, 8, 20), 9),
        ("8月10日12点半吃的什么？", date(2026, 8, 20), 6),
    ],
)
def test_a_question_naming_part_of_a_day_is_answered_from_that_parts_entries(
    tmp_path: Path, question: str, today: date, first: int
) -> None:
    """Every entry of the day held the day alike: the standup came first for the afternoon."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", max_results=3, min_score=0.0, today=today)
        assert found.results[0].date == "2026-08-10"
        assert found.results[0].start_line == first


@pytest.mark.parametrize(
    ("question", "entries"),
    [
        ("what was I doing at 3pm on Aug 10?", {9}),  # the 15:00 work
        ("8月10日下午3点在做什么？", {9}),
        ("what did I do on the afternoon of Aug 10?", {6, 9}),  # lunch at 12:30 or the work
    ],
)
def test_the_entry_at_the_hour_asked_outranks_the_days_untimed_notes(
    tmp_path: Path, question: str, entries: set[int]
) -> None:
    """A meeting note of the day and a runbook naming the day say nothing of the hour: when the
    day's log holds an entry at it, that entry answers (they came first in hybrid search)."""
    ws = _daily_logs(tmp_path / "ws")
    write_notes(
        ws,
        {
            "memory/meetings/2026-08-10-planning.md": (
                "# Planning, 2026-08-10\n\nWe planned the alpha module's work for the quarter.\n"
            ),
            "memory/runbooks/deploy.md": (
                "# deploy runbook\n\nUpdated 2026-08-10: what to do when a deploy fails.\n"
            ),
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(
            question, mode="keyword", max_results=3, min_score=0.0, today=date(2026, 8, 20)
        )
        first = found.results[0]
        assert first.path == "memory/2026-08-10.md" and first.start_line in entries


@pytest.mark.parametrize("question", ["what did I do the week of Aug 5?", "8月5日那周做了什么？"])
def test_a_question_naming_the_week_of_a_day_is_answered_from_that_weeks_notes(
    tmp_path: Path, question: str
) -> None:
    """Monday 3 to Sunday 9 August, not the 5th alone."""
    with Memory(_daily_logs(tmp_path / "ws"), overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(
            question, mode="keyword", max_results=9, min_score=0.0, today=date(2026, 8, 20)
        )
        dates = {r.date for r in found.results}
        assert dates <= {f"2026-08-{d:02d}" for d in range(3, 10)} and len(dates) > 1


def test_a_question_naming_a_month_is_answered_from_that_months_notes(tmp_path: Path) -> None:
    ws = _daily_logs(tmp_path / "ws")
    for day in (28, 30):  # two July logs beside three weeks of August
        write_notes(ws, {f"memory/2026-07-{day}.md": f"# 2026-07-{day}\n\n- planned the quarter\n"})
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        for question in ("what did I do in July?", "7月做了什么？", "what did I do in July 2026?"):
            found = mem.search(question, mode="keyword", min_score=0.0)
            assert sorted(r.date for r in found.results) == ["2026-07-28", "2026-07-30"], question
        august = mem.search("8月的 standup 说了什么？", mode="keyword", max_results=5)
        assert len(august.results) == 5 and all(r.date.startswith("2026-08") for r in august)
        # a month memory has no note of is searched as its words
        profile = query_profile(mem.index, "what did I do in May?", stopwords=STOP_WORDS)
        assert profile is None or profile.days == ()


def test_memory_counts_yesterday_from_today_in_the_users_time_zone(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    ws = write_notes(
        tmp_path / "ws",
        {
            f"memory/{yesterday}.md": f"# {yesterday}\n\n- shipped the quokka exporter\n",
            "memory/2020-01-01.md": "# 2020-01-01\n\n- planned the narwhal exporter\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none", "timezone": "UTC"}) as mem:
        hits = mem.search("what did I do yesterday?", mode="keyword")
    assert [h.path for h in hits] == [f"memory/{yesterday}.md"]


def test_in_a_memory_of_a_few_lines_a_lacked_word_tells_little(tmp_path: Path) -> None:
    # A new memory lacks most words of any question: "expire" counts as much as memory has
    # written English lines, out of TELLING_LINES, and in full from there on.
    query = "When does my residence permit expire?"
    fact = "- Residence permit: valid until 2027-03-31.\n"

    def shares(lines: int) -> tuple[float, float]:
        """The absent share, and what it would be with the lack counted in full."""
        notes = "\n".join(f"- note {i}: lunch with the team, then a review." for i in range(lines))
        profile = _profile_of(tmp_path / str(lines), {"MEMORY.md": fact + notes + "\n"}, query)
        assert profile.absent == ("expire",)
        held = profile.weights["residence"] + profile.weights["permit"]
        lacked = profile.weights["expire"]
        telling = min(1.0, (lines + 1) / keyword.TELLING_LINES)
        assert profile.absent_share == pytest.approx(lacked * telling / (held + lacked * telling))
        return profile.absent_share, lacked / (held + lacked)

    few, in_full = shares(9)
    assert 0 < few < in_full / 5
    many, in_full = shares(keyword.TELLING_LINES + 20)
    assert many == pytest.approx(in_full)


def test_keyword_search_alone_discounts_a_lack_by_memory_size_not_by_writing(
    tmp_path: Path,
) -> None:
    # Hybrid's absent share counts a lacked Chinese word next to nothing in a memory written
    # in English (its judge of meaning decides); keyword search alone has no such judge, so it
    # counts the lack in full once memory is large enough, and by memory's size below that.
    query = "residence permit 到期"
    fact = "- Residence permit: valid until 2027-03-31.\n"

    def profile_of(lines: int) -> QueryProfile:
        notes = "\n".join(f"- note {i}: lunch with the team, then a review." for i in range(lines))
        profile = _profile_of(tmp_path / str(lines), {"MEMORY.md": fact + notes + "\n"}, query)
        assert profile.absent == ("到期",)
        return profile

    large = profile_of(keyword.TELLING_LINES + 20)
    held = large.weights["residence"] + large.weights["permit"]
    lacked = large.weights["到期"]
    assert large.absent_share < 0.05 * lacked / (held + lacked)  # no Chinese line: tells little
    assert large.told_mass == pytest.approx(large.mass)  # … but keyword search alone: in full
    assert large.alone() is large
    small = profile_of(9)
    share = max(keyword.LEAST_TOLD, (9 + 1) / keyword.TELLING_LINES)  # English lines written
    held = small.weights["residence"] + small.weights["permit"]
    lacked = small.weights["到期"]
    assert small.told_mass == pytest.approx(held + keyword.ABSENT_WEIGHT * lacked * share)
    assert small.alone().mass == small.told_mass < small.mass


def test_the_word_naming_the_kind_of_the_answer_is_no_lack_that_tells(tmp_path: Path) -> None:
    # "Which train": the notes name the train (高铁), not the word. Memory lacking "train"
    # says nothing of whether it holds the answer, where "Is there a train …" asks about one.
    files = {
        "memory/2026-09-29.md": "- 17:00 国庆回杭州，高铁票买好了（10/1 08:14 虹桥 → 杭州东）。\n",
        "memory/2026-09-30.md": "- Standup: take the Hangzhou office move slowly.\n",
        "MEMORY.md": "- Mo's hometown is Hangzhou; parents live there.\n",
    }
    kind = _profile_of(tmp_path / "kind", files, "Which train does Mo take to Hangzhou?")
    plain = _profile_of(tmp_path / "plain", files, "Does Mo take a train to Hangzhou?")
    for profile in (kind, plain):
        assert profile.absent == ("train",)  # named as lacked either way (not_in_memory)
    assert kind.absent_share == 0.0 < plain.absent_share
    held = sum(w for t, w in kind.weights.items() if t != "train")
    assert kind.mass == pytest.approx(held)
    assert plain.mass == pytest.approx(held + keyword.ABSENT_WEIGHT * plain.weights["train"])
