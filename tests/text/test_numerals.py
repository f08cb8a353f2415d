"""Numbers in Chinese numerals, read and written (:mod:`memdir.text.numerals`)."""

from __future__ import annotations

import pytest

from memdir.text.numerals import cjk_number, cjk_numeral


@pytest.mark.parametrize(
    ("word", "number"),
    [
        ("三", 3),
        ("十", 10),
        ("十二", 12),
        ("一十", 10),
        ("二十", 20),
        ("九十九", 99),
        ("两", 2),
        ("兩", 2),
        ("两百", 200),
        ("一百二十", 120),
        ("12", 12),
    ],
)
def test_a_number_in_chinese_numerals_or_digits(word: str, number: int) -> None:
    assert cjk_number(word) == number


@pytest.mark.parametrize("word", ["", "零", "百", "十十", "三二", "十二百", "三点"])
def test_what_is_no_number(word: str) -> None:
    assert cjk_number(word) is None


def test_a_number_written_as_a_date_writes_it_and_read_back() -> None:
    assert [cjk_numeral(n) for n in (3, 10, 12, 20, 31)] == ["三", "十", "十二", "二十", "三十一"]
    assert all(cjk_number(cjk_numeral(n)) == n for n in range(1, 100))
