"""Which writing a line or a query term is in (memdir.text.scripts)."""

from __future__ import annotations

from memdir.text.scripts import line_script, script_lines, term_writings


def test_a_line_is_in_the_writing_of_its_words_not_of_the_names_it_quotes() -> None:
    assert line_script("Deploys run on Fridays.") == "latin"
    assert line_script("- 周五部署 OPS-1234，告警阈值调整为 p99 300ms。") == "zh"
    assert line_script("HNM-151 の売り切れバッジは accent.red") == "ja"
    assert line_script("在留カード") == "ja"  # kana among kanji: Japanese
    assert line_script("회의는 3시에 OPS-1234") == "ko"
    assert line_script("| --- | --- |") is None
    assert line_script("2026-08-03 12:30") is None
    assert line_script("a 1") is None  # no word of two letters


def test_lines_are_counted_per_writing_across_texts() -> None:
    counts = script_lines(["# Notes\n\n- tea at ten\n- 午饭吃面\n", "会議は10時から\n---\n"])
    assert counts == {"latin": 2, "zh": 1, "ja": 1}
    assert script_lines([]) == {}


def test_a_han_term_may_be_written_in_chinese_or_japanese_lines() -> None:
    assert term_writings("expire") == ("latin",)
    assert term_writings("治疗") == ("zh", "ja")
    assert term_writings("リリース") == ("ja",)
    assert term_writings("회의") == ("ko",)
    assert term_writings("99 95") == ()  # digits are written alike everywhere
