"""Quarters and halves of a year, the ways people write them (:mod:`memdir.text.periods`)."""

from __future__ import annotations

import pytest

from memdir.text.periods import periods, writings


def _read(text: str) -> list[tuple[str, int, str]]:
    return [(p.kind, p.number, text[p.start : p.end]) for p in periods(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("第四季度的 OKR", [("q", 4, "第四季度")]),
        ("三季度回顾", [("q", 3, "三季度")]),
        ("第2季度", [("q", 2, "第2季度")]),
        ("Q4 OKR 的 KR2", [("q", 4, "Q4")]),
        ("计划放在 q3。", [("q", 3, "q3")]),
        ("What are the fourth-quarter OKRs?", [("q", 4, "fourth-quarter")]),
        ("3rd quarter of 2025", [("q", 3, "3rd quarter")]),
        ("第3四半期の売上", [("q", 3, "第3四半期")]),
        ("4분기 OKR", [("q", 4, "4분기")]),
        ("明年 H1 做 provider 抽象层", [("h", 1, "H1")]),
        ("上半年要做什么", [("h", 1, "上半年")]),
        ("下半期の目標", [("h", 2, "下半期")]),
        ("하반기 채용", [("h", 2, "하반기")]),
        # the year stays words of the question
        ("the first half of next year", [("h", 1, "first half")]),
        ("in the second half of 2025", [("h", 2, "second half")]),
    ],
)
def test_a_quarter_or_half_in_the_ways_people_write_it(
    text: str, expected: list[tuple[str, int, str]]
) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "四季很美",  # the four seasons
        "十一季度",
        "Q4s",
        "HQ1",
        "h1.5",
        "Q5",
        "the first half of September",  # a part of a month (memdir.dates)
        "the first half of the meeting",
        "a quarter of the users",
        "上半月",
        "第一季的剧情",  # a season of a show
    ],
)
def test_what_is_no_quarter_or_half(text: str) -> None:
    assert _read(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "this quarter",
        "last quarter's numbers",
        "上季度",
        "下个季度做分区",
        "本季度",
        "前四半期",
        "지난 분기",
    ],
)
def test_a_quarter_counted_from_today_is_none(text: str) -> None:
    # notes written in another quarter say "next quarter" of theirs
    assert _read(text) == []


def test_the_quarter_before_is_not_the_first() -> None:
    assert _read("上一季度和一季度") == [("q", 1, "一季度")]


def test_the_ways_notes_write_a_period() -> None:
    assert writings("q", 4) == ["Q4", "四季度", "fourth quarter", "第4四半期", "4분기"]
    assert writings("h", 2) == ["H2", "下半年", "second half", "下半期", "하반기"]
    # each writing reads as the period it writes
    for kind, number in [("q", n) for n in range(1, 5)] + [("h", 1), ("h", 2)]:
        for written in writings(kind, number):
            assert [(p.kind, p.number) for p in periods(written)] == [(kind, number)], written
