"""The notes that name a day: a plan written in the log of the day it was made answers a
question about the day it is for."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memdir import Memory
from memdir.search.keyword import query_profile
from memdir.search.mentions import MAX_DAYS, naming_chunks
from memdir.text.stopwords import STOP_WORDS

from .helpers import write_notes

LOGS = {
    # the plan, made on Wednesday 9/9, for Tuesday 9/15, which has no log
    "memory/2026-09-09.md": (
        "# 2026-09-09 周三\n\n### 10:00 - standup\nrelay v1.13.3 今天上 staging。\n\n"
        "### 16:00 - release plan\nv1.13.3 下周二（9/15）上 prod，不在周五上。\n"
    ),
    # a time that reads like a day, and a day written in English, in other logs
    "memory/2026-09-10.md": (
        "# 2026-09-10 周四\n\n### 9:15 - standup\nnothing blocking, ramen for lunch\n\n"
        "### 14:00 - dentist\nBooked the dentist for Sep 19, 10:00.\n"
    ),
    # 明天 in the log of the day before
    "memory/2026-09-17.md": "# 2026-09-17 周四\n\n### 18:00 - reminder\n明天 10:00 和老王对 OKR。\n",
    "memory/2026-09-14.md": "# 2026-09-14 周一\n\n### 09:30 - standup\nrelay 的 pool 告警上线了。\n",
    # 昨日 in the log of the day after a day without one (Sunday 9/20)
    "memory/2026-09-21.md": "# 2026-09-21 月\n\n- 昨日の design review で B 案に決定。\n",
    "MEMORY.md": "# Memory\n\n- relay releases go out on Tuesdays\n",
    # a day written in Korean, weeks ahead
    "memory/2026-09-22.md": "# 2026-09-22 화\n\n- 10:00 디자인 리뷰: 10월 20일에 고객 미팅.\n",
}


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "ws", LOGS)


def _paths(rows: list) -> set[str]:
    return {row.chunk.path for row in rows}


def test_the_notes_naming_a_day_are_found_in_every_form(logs: Path) -> None:
    with Memory(logs, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        # 9/15 in a sentence (下周二 names it too, from 9/9)
        found = naming_chunks(mem.index, ["2026-09-15"])
        assert [(r.chunk.path, r.chunk.start_line) for r in found] == [("memory/2026-09-09.md", 6)]
        # Sep 19 in English; a day without a year matches it in any year
        assert _paths(naming_chunks(mem.index, ["2026-09-19"])) == {"memory/2026-09-10.md"}
        assert _paths(naming_chunks(mem.index, ["--09-19"])) == {"memory/2026-09-10.md"}
        # 10월 20일 in Korean
        assert _paths(naming_chunks(mem.index, ["2026-10-20"])) == {"memory/2026-09-22.md"}
        # 明天 in the log of 9/17, 昨日 in that of 9/21
        assert _paths(naming_chunks(mem.index, ["2026-09-18"])) == {"memory/2026-09-17.md"}
        assert _paths(naming_chunks(mem.index, ["2026-09-20"])) == {"memory/2026-09-21.md"}
        # the heading "9:15 - standup" is a time: its words 9 and 15 name no day
        assert naming_chunks(mem.index, ["2026-09-15", "2026-09-16"]) == found
        assert naming_chunks(mem.index, ["2026-10-15"]) == []
        # a month's days are too many to look for
        days = [f"2026-09-{d:02d}" for d in range(1, MAX_DAYS + 2)]
        assert naming_chunks(mem.index, days) == []


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("9月15日有什么安排？", date(2026, 9, 9)),
        ("what's on Sept 15?", date(2026, 9, 9)),
        ("下周二有什么安排？", date(2026, 9, 9)),
        ("9/15 の予定は？", date(2026, 9, 9)),
    ],
)
def test_a_day_no_log_is_kept_of_is_answered_by_the_plan_naming_it(
    logs: Path, question: str, today: date
) -> None:
    with Memory(logs, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", today=today)
        assert found.results, question
        assert (found.results[0].path, found.results[0].start_line) == ("memory/2026-09-09.md", 6)


def test_the_log_of_a_day_comes_before_the_plan_naming_it(logs: Path) -> None:
    with Memory(logs, overrides={"embedding.provider": "none"}) as mem:
        write_notes(logs, {"memory/2026-09-15.md": "# 2026-09-15 周二\n\n- v1.13.3 上了 prod。\n"})
        mem.sync()
        profile = query_profile(mem.index, "9月15日做了什么？", stopwords=STOP_WORDS)
        assert profile is not None and profile.days == ("2026-09-15",)
        # the plan still holds the day, at half the weight of the log of it
        assert [r.chunk.path for r in profile.naming] == ["memory/2026-09-09.md"]
        assert {r.chunk.id for r in profile.naming} == profile.aside
        hits = mem.search("9月15日做了什么？", mode="keyword", min_score=0.0).results
        assert [h.path for h in hits[:2]] == ["memory/2026-09-15.md", "memory/2026-09-09.md"]


def test_plans_are_found_on_both_backends(logs: Path, backend: dict[str, str]) -> None:
    with Memory(logs, overrides={"embedding.provider": "none", **backend}) as mem:
        mem.sync()
        hits = mem.search("明天有什么安排？", mode="keyword", today=date(2026, 9, 17)).results
        assert hits and hits[0].path == "memory/2026-09-17.md"
        hits = mem.search("9月15日有什么安排？", mode="keyword", today=date(2026, 9, 9)).results
        assert hits and (hits[0].path, hits[0].start_line) == ("memory/2026-09-09.md", 6)
        hits = mem.search("what's on Sep 19?", mode="keyword", today=date(2026, 9, 10)).results
        assert hits and (hits[0].path, hits[0].start_line) == ("memory/2026-09-10.md", 6)
        # the day after a day without a log names it as 昨日
        profile = query_profile(mem.index, "9月20日は何があった？", stopwords=STOP_WORDS)
        assert profile is not None and profile.days == ("2026-09-20",)
        assert [row.chunk.path for row in profile.naming] == ["memory/2026-09-21.md"]


@pytest.mark.parametrize("question", ["9/4 の予定は？", "9/4 有什么安排？", "what's on 9/4?"])
def test_a_plan_naming_its_day_after_the_weekday_answers_for_that_day(
    tmp_path: Path, question: str
) -> None:
    """``周五（9/4）`` names a day, as ``9/4（周五）`` does: a weekday next to a one-digit
    ``M/D`` makes it one. Before, the plan was no note naming 9/4, and a question that now
    reads ``9/4`` as a day found only the note writing 2026-09-04."""
    ws = write_notes(
        tmp_path / "ws",
        {
            "memory/2026-09-02.md": (
                "# 2026-09-02 周三\n\n### 10:00 - standup\nrelay v1.13.2 上 staging。\n\n"
                "### 17:00 - plan\n周五（9/4）晚上把 v1.13.2 推 prod，周岚同意了。\n"
            ),
            "memory/notes/postmortem.md": (
                "# Postmortem\n\n- It went to prod on Friday 2026-09-04 at 21:00, so nobody"
                " was watching on Saturday night.\n"
            ),
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", min_score=0.0, today=date(2026, 9, 2))
        # both notes name the day, which has no log: both answer it, the plan among them
        named = [(r.path, r.start_line) for r in found.results[:2]]
        assert ("memory/2026-09-02.md", 6) in named and "memory/notes/postmortem.md" in {
            path for path, _ in named
        }


@pytest.mark.parametrize(
    "question",
    ["这个周末有什么安排？", "11月14日有什么安排？", "what's on Nov 15?", "今週末の予定は？"],
)
def test_a_weekend_no_log_is_kept_of_is_answered_by_the_note_naming_it(
    tmp_path: Path, question: str
) -> None:
    """A note's own 周末 was read as no day: a plan for the weekend, written on Thursday, was
    no answer to what is on that Saturday, which has no log."""
    ws = write_notes(
        tmp_path / "ws",
        {
            "memory/2026-11-12.md": (
                "# 2026-11-12 木\n\n- 10:00 Hanami 的 review，改了三处。\n"
                "- 夜 房东：明年起房租 ¥9,800 → ¥10,500。太高了，周末再回她\n"
            ),
            "memory/2026-11-13.md": "# 2026-11-13 金\n\n- 10:00 Hanami 的 review 又改了两处。\n",
            "memory/2026-11-16.md": "# 2026-11-16 月\n\n- 10:00 standup，Hanami 上线。\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        found = mem.search(question, mode="keyword", min_score=0.0, today=date(2026, 11, 12))
        assert found.results, question
        first = found.results[0]
        assert first.path == "memory/2026-11-12.md" and first.start_line <= 4 <= first.end_line
        assert _paths(naming_chunks(mem.index, ["2026-11-14"])) == {"memory/2026-11-12.md"}
        # the habit of every weekend names none
        write_notes(ws, {"memory/2026-11-12.md": "# 2026-11-12 木\n\n- 每个周末都去游泳\n"})
        mem.sync()
        assert naming_chunks(mem.index, ["2026-11-14"]) == []
