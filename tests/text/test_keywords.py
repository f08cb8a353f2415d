"""Keyword extraction for the keyword-only fallback (spec §9, conformance cases 75–78)."""

from __future__ import annotations

import pytest

from memdir.text import stopwords
from memdir.text.keywords import expand_query_for_fts, extract_keywords


def test_case_75_english() -> None:
    keywords = extract_keywords("that thing we discussed about the API")
    assert keywords == ["discussed", "api"]


def test_case_75_english_request_and_time_words_are_dropped() -> None:
    keywords = extract_keywords("Please help me find what we said yesterday about deployment")
    assert keywords == ["said", "deployment"]


def test_case_75_chinese() -> None:
    keywords = extract_keywords("之前讨论的那个方案")
    assert "讨论" in keywords
    assert "方案" in keywords
    for stop_word in ("之前", "的", "那个"):
        assert stop_word not in keywords


def test_case_75_chinese_unigrams_then_bigrams() -> None:
    assert extract_keywords("数据库") == ["数", "据", "库", "数据", "据库"]


def test_case_75_chinese_with_full_width_punctuation() -> None:
    keywords = extract_keywords("部署方案，数据库迁移？")
    assert "方案" in keywords
    assert "迁移" in keywords
    assert "案数" not in keywords  # the comma separates the segments


def test_case_75_mixed_english_and_chinese() -> None:
    keywords = extract_keywords("API 接口 设计")
    assert keywords[0] == "api"
    assert {"接口", "设计"} <= set(keywords)


def test_ascii_inside_chinese_segment_is_kept() -> None:
    # Upstream drops ASCII inside a Chinese segment and so loses "python" here.
    keywords = extract_keywords("用Python写的脚本")
    assert "python" in keywords
    assert "脚本" in keywords
    assert "用写" not in keywords  # no bigram across the ASCII run


def test_case_75_korean_particles() -> None:
    keywords = extract_keywords("서버에서 발생한 에러를 확인")
    assert {"서버", "에러", "확인"} <= set(keywords)
    assert keywords.index("서버에서") < keywords.index("서버")


def test_case_75_korean_longest_particle_first() -> None:
    keywords = extract_keywords("기능으로 설명")
    assert "기능" in keywords
    assert "기능으" not in keywords


def test_case_75_korean_ascii_stem() -> None:
    assert extract_keywords("API를") == ["api를", "api"]


def test_case_75_korean_single_syllable_stem_is_not_emitted() -> None:
    assert extract_keywords("논의") == ["논의"]


def test_case_75_korean_stop_words() -> None:
    # 우리가 → stem 우리 (stop word); 어제 and 것 are stop words themselves.
    assert extract_keywords("우리가 어제 논의한 것") == ["논의한"]


def test_case_75_korean_particle_only_stripped_from_longer_word() -> None:
    assert extract_keywords("에서") == []


def test_case_75_japanese() -> None:
    keywords = extract_keywords("昨日話したデプロイ戦略")
    assert "デプロイ" in keywords
    assert "戦略" in keywords
    assert "昨日" not in keywords


def test_case_75_japanese_kanji_bigrams() -> None:
    keywords = extract_keywords("経済政策について")
    assert {"経済", "済政", "政策"} <= set(keywords)
    assert keywords[0] == "経済政策"
    assert "について" not in keywords


def test_case_75_japanese_short_hiragana_runs_are_dropped() -> None:
    assert extract_keywords("猫が犬") == ["猫", "犬"]


def test_case_75_japanese_full_width_ascii_is_folded() -> None:
    assert extract_keywords("ＡＰＩ設計について") == ["api", "設計"]


def test_case_75_spanish() -> None:
    keywords = extract_keywords("¿Dónde está la configuración del servidor?")
    assert keywords == ["configuración", "servidor"]


def test_case_75_portuguese() -> None:
    keywords = extract_keywords("Onde está a configuração do banco de dados?")
    assert keywords == ["configuração", "banco", "dados"]


def test_case_75_arabic() -> None:
    keywords = extract_keywords("ماذا قلنا عن خطة النشر؟")
    assert keywords == ["قلنا", "خطة", "النشر"]


def test_stop_phrase_arabic_please_is_removed() -> None:
    # Upstream lists "من فضلك" but splits on whitespace first, so "فضلك" leaked through.
    assert extract_keywords("من فضلك ابحث عن خطة النشر") == ["خطة", "النشر"]
    assert extract_keywords("فضلك") == ["فضلك"]


def test_stop_phrase_spanish_por_favor_is_removed_but_favor_alone_is_kept() -> None:
    assert extract_keywords("Por  favor, busca el plan de despliegue") == ["plan", "despliegue"]
    assert extract_keywords("votamos a favor del plan") == ["votamos", "favor", "plan"]


def test_stop_phrase_needs_whole_words() -> None:
    assert extract_keywords("por favorito") == ["favorito"]


def test_stop_phrases_are_the_multi_word_entries() -> None:
    assert {"من فضلك", "لو سمحت", "por favor"} <= stopwords.STOP_PHRASES
    assert all(" " in phrase for phrase in stopwords.STOP_PHRASES)


def test_case_75_example_all_stop_words() -> None:
    assert extract_keywords("the a an is are") == []


def test_case_76_empty_input() -> None:
    assert extract_keywords("") == []
    assert extract_keywords("   \n\t") == []


def test_case_76_only_stop_words() -> None:
    assert extract_keywords("what did we do yesterday") == []
    assert extract_keywords("的") == []
    assert extract_keywords("之前") == []


def test_case_76_duplicates_collapse() -> None:
    keywords = extract_keywords("test test testing")
    assert keywords.count("test") == 1
    assert keywords == ["test", "testing"]


def test_filters_short_ascii_words_numbers_and_symbols() -> None:
    # "v2" is not made only of letters, so it survives the short-word filter.
    assert extract_keywords("go to v2 2024 ++ == ٢٠٢٤ c++ 42x") == ["v2", "c++", "42x"]


def test_splits_on_unicode_punctuation_including_underscore_and_hyphen() -> None:
    assert extract_keywords("user_name real-time «quoted»") == [
        *("user", "name", "real", "time", "quoted"),
    ]


def test_case_78_expand_query_without_keywords() -> None:
    assert expand_query_for_fts("the") == "the"


def test_case_78_expand_query_with_keywords() -> None:
    expanded = expand_query_for_fts("the solution for bugs")
    assert expanded == "the solution for bugs OR solution OR bugs"


@pytest.mark.parametrize(
    "words",
    [
        stopwords.ENGLISH,
        stopwords.SPANISH,
        stopwords.PORTUGUESE,
        stopwords.ARABIC,
        stopwords.CHINESE,
        stopwords.KOREAN,
        stopwords.JAPANESE,
    ],
)
def test_stop_word_lists_are_lowercase_and_trimmed(words: frozenset[str]) -> None:
    for word in words:
        assert word == word.lower().strip()
    assert words <= stopwords.STOP_WORDS


def test_stop_word_lists_keep_english_content_words() -> None:
    for word in ("may", "son", "era", "sin", "dos", "api", "discussed"):
        assert word not in stopwords.STOP_WORDS
