"""Amounts of time and size, the ways people write them (:mod:`memdir.text.quantities`)."""

from __future__ import annotations

import pytest

from memdir.text.quantities import quantities, writings


def _read(text: str) -> list[tuple[str, str, str]]:
    return [(q.number, q.unit, text[q.start : q.end]) for q in quantities(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("timeout 30s, p99 800ms", [("30", "s", "30s"), ("800", "ms", "800ms")]),
        ("p99 went from 1.8s to 1.2 seconds", [("1.8", "s", "1.8s"), ("1.2", "s", "1.2 seconds")]),
        ("锁等了 13 分钟", [("13", "min", "13 分钟")]),
        ("超时设成三十秒", [("30", "s", "三十秒")]),
        ("两个小时后恢复", [("2", "h", "两个小时")]),
        ("保留十五天", [("15", "d", "十五天")]),
        ("一百二十秒", [("120", "s", "一百二十秒")]),
        ("2時間かかった", [("2", "h", "2時間")]),
        ("30초 대기", [("30", "s", "30초")]),
        ("48GB of RAM, 42 kb payloads", [("48", "gb", "48GB"), ("42", "kb", "42 kb")]),
        ("快了 3 倍", [("3", "x", "3 倍")]),
        ("a 2x speedup", [("2", "x", "2x")]),
        (
            "took two hours and fifteen minutes",
            [("2", "h", "two hours"), ("15", "min", "fifteen minutes")],
        ),
        ("retention 90 days", [("90", "d", "90 days")]),
        ("--since 2h", [("2", "h", "2h")]),
        # counts of things, their number whole
        ("50k msgs in the DLQ", [("50000", "n", "50k")]),
        ("12.1k msg/s", [("12100", "n", "12.1k")]),
        ("1.2M events", [("1200000", "n", "1.2M")]),
        ("回填了 5.31 亿行", [("531000000", "n", "5.31 亿")]),
        ("日活五万人", [("50000", "n", "五万")]),
        ("两百万条", [("2000000", "n", "两百万")]),
        ("8,700 users", [("8700", "n", "8,700")]),
        ("2 million rows", [("2000000", "n", "2 million")]),
    ],
)
def test_an_amount_in_the_ways_people_write_it(
    text: str, expected: list[tuple[str, str, str]]
) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a second opinion",  # an ordinal, no second of time
        "one day we will",  # words: a day in words is none
        "一天",  # one day, said of any day
        "3点15分",  # a clock, not fifteen minutes
        "第二天 cutover 时补了权限",  # the day after
        "第2天",
        "第二十天",
        "老板前两天说的",  # a while ago
        "这两天在忙迁移",  # these days
        "过两天再看",  # in a while
        "4분기 OKR",  # a quarter (memdir.text.periods)
        "v2s and 3D and 2H",  # names
        "OPS-30s",  # part of a code
        "a 3x3 grid",
        "retried 3 times",
        "30% of users",
        "K8s on 4K60 screens",  # names
        "v1.2M",
        "1.2345k",  # no count of things
        "1,2,3",
        "第一万",
    ],
)
def test_what_is_no_amount(text: str) -> None:
    assert _read(text) == []


def test_the_ways_notes_write_an_amount() -> None:
    assert writings("30", "s") == ["30s", "30 s", "30 sec", "30 seconds", "30秒", "三十秒", "30초"]
    # a small amount in Chinese numerals too (两 for 2), not a large one or a fraction
    assert "十分钟" in writings("10", "min") and "两天" in writings("2", "d")
    assert "二十四小时" in writings("24", "h")
    assert not any("百" in w for w in writings("120", "s"))
    assert writings("1.5", "h") == ["1.5h", "1.5 h", "1.5 hours", "1.5小时", "1.5時間", "1.5시간"]
    assert "500ms" in writings("500", "ms") and "500毫秒" in writings("500", "ms")
    assert "13分钟" in writings("13", "min") and "13 minutes" in writings("13", "min")
    # a count in thousands, 万 and millions, each only where it is how people write it
    assert writings("168000", "n") == ["168,000", "168k", "16.8万"]
    assert writings("1200000", "n") == ["1,200,000", "1.2M", "1.2 million", "120万"]
    assert writings("531000000", "n") == ["531,000,000", "531M", "531 million", "5.31亿"]
    assert writings("12345", "n") == ["12,345"]  # no 12.345k, no 1.2345万
    assert writings("999", "n") == []  # written as it is
    # every writing is read back as the same amount
    units = ("ms", "s", "min", "h", "d", "kb", "mb", "gb", "tb", "x")
    for number, unit in [(n, u) for n in ("7", "2", "15", "30", "99") for u in units] + [
        ("168000", "n"),
        ("1200000", "n"),
        ("531000000", "n"),
    ]:
        for written in writings(number, unit):
            assert _read(written) == [(number, unit, written)], written
