"""The words of software work in Chinese and English (:mod:`memdir.text.glossary`)."""

from __future__ import annotations

from memdir.text import bridge_term, fts_document, fts_query_terms
from memdir.text.glossary import GLOSSARY, JAPANESE, glossary_bridges
from memdir.text.stopwords import STOP_WORDS


def _bridges(query: str) -> dict[str, list[str]]:
    return glossary_bridges(query, fts_query_terms(query, stopwords=STOP_WORDS))


def test_a_chinese_word_gives_its_bigrams_the_english_ones() -> None:
    found = _bridges("postmortem 里说 staging 为什么没发现连接池泄漏？")
    assert found["连接"] == found["接池"] == ["connection pool"]
    assert found["泄漏"] == ["leak"]
    assert found["postmortem"] == ["复盘", "障害報告", "振り返り"]  # Chinese, then Japanese
    assert _bridges("ledger 的熔断规则是什么？")["熔断"] == ["circuit breaker"]


def test_each_word_of_an_english_phrase_gets_the_chinese_word() -> None:
    found = _bridges("What did the load test on staging show?")
    assert found["load"] == found["test"] == ["压测", "負荷試験"]
    # a plural, and a hyphen for a space
    found = _bridges("the circuit-breakers tripped")
    assert found["circuit"] == ["熔断", "熔断器"]
    # a word of a phrase alone is no bridge: "load" of "load the page"
    assert "load" not in _bridges("load the page")


def test_a_cjk_bridge_of_three_characters_is_searched_as_its_grams() -> None:
    assert bridge_term("连接池") == "连 连接 接 接池 池"
    assert bridge_term("熔断") == "熔断"


def test_the_table() -> None:
    chinese = [c for c, _ in GLOSSARY]
    assert len(chinese) == len(set(chinese))
    for word, englishes in GLOSSARY:
        assert all("\u4e00" <= c <= "\u9fff" for c in word), word
        assert englishes and all(e == e.lower() and e.isascii() for e in englishes), word


def test_a_japanese_word_reaches_the_english_and_chinese_ones() -> None:
    found = _bridges("本番の障害はいつ？")
    assert found["本番"][:2] == ["production", "prod"]
    assert {"incident", "outage", "故障"} <= set(found["障害"])
    # the Japanese is folded and its kana left out, as the question's terms are
    assert "回滚" in _bridges("切り戻しにかかった時間は？")["切戾"]
    assert "压测" in _bridges("負荷試験の結果")["试验"]
    # and the other way: English and Chinese questions reach Japanese notes
    assert "切り戻し" in _bridges("What was the rollback plan?")["rollback"]
    assert "切り戻し" in _bridges("回滚花了多久？")["回滚"]
    assert "議事録" in _bridges("where are the meeting notes?")["notes"]


def test_the_japanese_table() -> None:
    japanese = [j for j, _ in JAPANESE]
    assert len(japanese) == len(set(japanese))
    chinese = {c for c, _ in GLOSSARY}
    for word, englishes in JAPANESE:
        # a word folded to one of GLOSSARY's is that entry's (監視 is not 监控, so it is here)
        assert fts_document(word) not in {fts_document(c) for c in chinese}, word
        assert englishes and all(e == e.lower() and e.isascii() for e in englishes), word
