"""MMR token sets and similarity (spec §7, conformance cases 13–16)."""

from __future__ import annotations

import pytest

from memdir.text.similarity import jaccard, mmr_tokens, text_similarity


def test_case_13_ascii_tokens() -> None:
    assert mmr_tokens("Hello World 123") == {"hello", "world", "123"}
    assert mmr_tokens("") == frozenset()
    assert mmr_tokens("!@#$%^&*()") == frozenset()
    assert mmr_tokens("hello_world test_case") == {"hello_world", "test_case"}
    assert mmr_tokens("hello hello HELLO") == {"hello"}


def test_case_14_cjk_unigrams_and_adjacent_bigrams() -> None:
    assert mmr_tokens("今天讨论") == {"今", "天", "讨", "论", "今天", "天讨", "讨论"}
    assert mmr_tokens("hello 你好世界 test") == {
        *("hello", "test", "你", "好", "世", "界", "你好", "好世", "世界"),
    }
    assert mmr_tokens("龙") == {"龙"}
    assert mmr_tokens("我a好") == {"a", "我", "好"}


@pytest.mark.parametrize(
    ("text", "chars"),
    [("こんにちは", "こんにちは"), ("안녕하세요", "안녕하세요"), ("カタカナ", "カタカナ")],
)
def test_case_14_kana_and_hangul(text: str, chars: str) -> None:
    bigrams = {chars[i : i + 2] for i in range(len(chars) - 1)}
    assert mmr_tokens(text) == set(chars) | bigrams


def test_hangul_jamo_and_extension_a_are_unigrams() -> None:
    assert mmr_tokens("\u1100\u3400") == {"\u1100", "\u3400", "\u1100\u3400"}


def test_bigrams_only_between_adjacent_cjk_characters() -> None:
    assert mmr_tokens("你 好") == {"你", "好"}


def test_non_ascii_word_runs_are_tokens() -> None:
    # Upstream keeps only [a-z0-9_]+ runs, so both Arabic snippets would be the empty set and
    # score as identical.
    assert mmr_tokens("Café naïve") == {"café", "naïve"}
    assert text_similarity("خطة النشر", "موعد الاجتماع") == 0.0
    assert mmr_tokens("Привет мир") == {"привет", "мир"}


def test_case_15_jaccard() -> None:
    abc = frozenset({"a", "b", "c"})
    assert jaccard(abc, abc) == 1.0
    assert jaccard(abc, {"x", "y"}) == 0.0
    assert jaccard(frozenset(), frozenset()) == 1.0
    assert jaccard(abc, frozenset()) == 0.0
    assert jaccard(frozenset(), abc) == 0.0
    assert jaccard(abc, {"b", "c", "d"}) == 0.5
    assert jaccard({"b", "c", "d"}, abc) == jaccard(abc, {"b", "c", "d"})


def test_case_16_text_similarity() -> None:
    assert text_similarity("hello world", "world hello") == 1.0
    assert text_similarity("Hello World", "hello world") == 1.0
    assert text_similarity("hello world", "foo bar") == 0.0
    assert text_similarity("苹果香蕉", "钢铁煤炭") == 0.0
    related = text_similarity("今天我们讨论了项目方案", "明天继续讨论项目进度")
    assert 0.0 < related < 1.0
