"""FTS tokenisation: CJK unigrams + bigrams, safe query building (spec §6.3, cases 1–3)."""

from __future__ import annotations

import sqlite3

import pytest

from memdir.text import FTS_TOKENIZE, fts_document, fts_query, is_cjk, word_tokens


def test_case_1_two_words() -> None:
    assert fts_query("hello world") == '"hello" OR "world"'


def test_case_2_underscore_kept_punctuation_splits() -> None:
    assert fts_query("FOO_bar baz-1") == '"foo_bar" OR "baz" OR "1"'


def test_case_3_cjk_runs_become_unigrams_and_bigrams() -> None:
    assert fts_query("金银价格") == '"金" OR "金银" OR "银" OR "银价" OR "价" OR "价格" OR "格"'
    assert fts_query("価格 2026年") == '"価" OR "価格" OR "格" OR "2026" OR "年"'


def test_case_3_blank_query_is_none() -> None:
    assert fts_query("   ") is None
    assert fts_query("!!! ???") is None


def test_fts_syntax_is_neutralised() -> None:
    q = fts_query('NEAR(a b) OR "x" AND -y * col:z')
    assert q is not None
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{FTS_TOKENIZE}')")
    conn.execute("INSERT INTO t VALUES ('col z near')")
    assert conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (q,)).fetchone()[0] == 1


def test_stopwords_dropped_unless_nothing_remains() -> None:
    stop = frozenset({"the", "a", "of"})
    assert fts_query("the history of rome", stopwords=stop) == '"history" OR "rome"'
    assert fts_query("the a", stopwords=stop) == '"the" OR "a"'


def test_document_expands_cjk_and_keeps_latin() -> None:
    assert fts_document("用PostgreSQL数据库").split() == [
        "用",
        "PostgreSQL",
        "数",
        "数据",
        "据",
        "据库",
        "库",
    ]


def test_fullwidth_latin_is_folded() -> None:
    assert word_tokens("ＡＢＣ１２３") == ["abc123"]


@pytest.mark.parametrize(
    ("text", "query", "hit"),
    [
        ("今天玩成语接龙游戏", "成语", True),
        ("今日はしりとり大会", "しり とり", True),
        ("오늘 끝말잇기 게임을 했다", "끝말", True),
        ("오늘 끝말잇기 게임을 했다", "게임", True),
        ("我们决定使用金银价格作为指标", "价格指标", True),
        ("The deploys happen on Tuesdays", "deploy", True),
        ("完全无关的句子", "数据库", False),
    ],
)
def test_cases_8_9_cjk_substrings_match_inside_words(text: str, query: str, hit: bool) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{FTS_TOKENIZE}')")
    conn.execute("INSERT INTO t VALUES (?)", (fts_document(text),))
    match = fts_query(query)
    assert match is not None
    assert (
        conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()[0] == 1
    ) is hit


@pytest.mark.parametrize(
    ("text", "cjk"),
    [
        ("周五部署", True),
        ("王芳是产品经理，负责移动端。她喜欢用 Feishu 写需求。", True),  # a Latin name inside
        ("東京タワーに行った", True),
        ("서울에 갔어요", True),
        ("Wioou 发布计划", True),  # four characters outweigh one short word
        ("which database did we choose", False),
        ("Owner: Alice Chen. Stack: Python, FastAPI, PostgreSQL.\n- 发票导出。", False),
        ("Привет, мир", False),
        ("Café crème brûlée", False),
        ("", False),
        ("2026-11-28 12:00", False),
    ],
)
def test_is_cjk_tells_mostly_cjk_text_from_the_rest(text: str, cjk: bool) -> None:
    assert is_cjk(text) is cjk
