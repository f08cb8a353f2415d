"""FTS tokenisation: CJK unigrams + bigrams, safe query building (spec §6.3, cases 1–3)."""

from __future__ import annotations

import random
import re
import sqlite3
import unicodedata

import pytest

from memdir.text import (
    FTS_TOKENIZE,
    bridge_term,
    fts_document,
    fts_query,
    fts_query_terms,
    identifier_spans,
    literal_spans,
    match_text,
    term_matcher,
    term_surfaces,
    word_tokens,
)


def test_case_1_two_words() -> None:
    assert fts_query("hello world") == '"hello" OR "world"'


def test_case_2_underscore_kept_punctuation_splits() -> None:
    # Upstream gives "foo_bar" OR "baz" OR "1": the parts of an identifier as loose words, so a
    # note naming baz-2 and another with a 1 anywhere match baz-1. memdir keeps the punctuation
    # split but searches the parts as one phrase.
    assert fts_query("FOO_bar baz-1") == '"foo_bar" OR "baz 1"'
    assert fts_query("plain on-call words") == '"plain" OR "on" OR "call" OR "words"'


def test_identifiers_are_phrases() -> None:
    assert fts_query("OPS-1234") == '"ops 1234"'
    assert fts_query("relay v1.13.2") == '"relay" OR "v1 13 2"'
    assert fts_query("max_tokens=8192 in deploy/relay/values.yaml") == (
        '"max_tokens 8192" OR "in" OR "deploy relay values yaml"'
    )
    assert fts_query("ERR_X 0x80AB") == '"err_x" OR "0x80ab"'
    assert fts_query("ＯＰＳ－１２３４") == '"ops 1234"'  # full-width folds first


def test_a_code_written_with_a_unicode_hyphen_is_the_same_code() -> None:
    # language models write a non-breaking hyphen (U+2011) in OPS‑1234, and minus signs come
    # pasted from documents: each was two loose words
    for dash in ("\u2010", "\u2011", "\u2212"):
        assert fts_query(f"OPS{dash}1234") == '"ops 1234"', dash
        assert term_surfaces(f"OPS{dash}1234 是什么", ["ops 1234"]) == ["OPS-1234"]
    assert literal_spans("`relay\u2011workers` 有几个") == ["relay-workers"]
    assert fts_query("BILL-421\u2014what happened") == '"bill 421" OR "what" OR "happened"'
    # an en dash joins a range or a pair in prose: its ends stay words
    assert fts_query("Tokyo\u2013Osaka 2019\u20132021") == '"tokyo" OR "osaka" OR "2019" OR "2021"'


def test_a_hyphenated_name_written_as_code_is_a_phrase() -> None:
    # between backticks, or as a channel, tag or handle, it names one thing; in prose it is
    # two words (on-call), as before
    assert fts_query("`relay-workers` replicas") == '"relay workers" OR "replicas"'
    assert fts_query("the #tw-hoshimi channel") == '"the" OR "tw hoshimi" OR "channel"'
    assert fts_query("ask @ops-bot") == '"ask" OR "ops bot"'
    assert fts_query("what does --dry-run do") == '"what" OR "does" OR "dry run" OR "do"'
    assert fts_query("relay-workers on-call") == '"relay" OR "workers" OR "on" OR "call"'
    assert term_surfaces("`relay-workers` 的副本数", ["relay workers"]) == ["relay-workers"]


def test_literal_spans_are_what_a_question_writes_between_backticks() -> None:
    assert literal_spans("what does `--check` do, and `nats://`? `--check` again") == [
        "--check",
        "nats://",
    ]
    assert literal_spans("`SHOW POOLS` 返回什么") == ["SHOW POOLS"]
    # a long option needs no backticks; prose's dashes are none
    assert literal_spans("what does --dry-run do, with `--check`?") == ["--dry-run", "--check"]
    assert literal_spans("home--tired, a -- b, x---y") == []
    assert literal_spans("` main ` and `ｍａｉｎ`") == ["main"]  # stripped, NFKC
    # no letter or digit, CJK, too long, or unpaired: none
    assert literal_spans("`/` `大促` `" + "x" * 81 + "` Deborah`s mother") == []


def test_cjk_question_words_are_not_terms() -> None:
    # 那次, 的, 是, 什么 and the bigrams that straddle them (次的, 的根, 因是, 是什) are gone.
    assert fts_query("TICKET-77 那次的根因是什么?") == '"ticket 77" OR "根" OR "根因" OR "因"'
    # Hiragana is particles and inflection in a question that has kanji or katakana.
    assert fts_query("佐藤さんはいつ東京に来ますか") == (
        '"佐" OR "佐藤" OR "藤" OR "东" OR "东京" OR "京" OR "来"'
    )
    assert fts_query("ひらがな") == '"ひ" OR "ひら" OR "ら" OR "らが" OR "が" OR "がな" OR "な"'
    # "when", "about", "back then" are no terms either (的时候, 大概, 当初, 現在)
    assert fts_query("报错的时候大概重试几次") == '"报" OR "报错" OR "错" OR "重" OR "重试" OR "试"'
    assert fts_query("当初选 NATS") == '"选" OR "nats"'
    assert fts_query("現在の担当") == '"担" OR "担当" OR "当"'
    # what someone did or was doing is the question's frame: not the 在做 of a note's
    # "何佳在做 invoice 导出", which came first for 8月11日下午2点在做什么？
    assert fts_query("老王在做什么？") == '"老" OR "老王" OR "王"'
    assert fts_query("周五做了什么") == '"周" OR "周五" OR "五"'
    assert fts_query("做饭") == '"做" OR "做饭" OR "饭"'
    assert fts_query("何佳的工作") == '"何" OR "何佳" OR "佳"'  # not every note holding 工作
    assert '"工作"' in fts_query("工作签证")
    # asking whether memory holds something: words about memory, not about the subject
    assert fts_query("你还记得 Kafka 吗？") == '"你" OR "kafka"'
    assert fts_query("我之前有没有提到过 Kafka？") == '"我" OR "kafka"'
    assert fts_query("Kafka のこと覚えてる？") == '"kafka"'
    # Characters that are often part of content words stay: 性能, 会议, 过期.
    assert '"性能"' in fts_query("性能会议过期")
    assert '"会议"' in fts_query("性能会议过期")


def test_korean_question_words_and_the_closing_verb() -> None:
    """A Korean question word with what follows it in one word asks (누가, 누구랑, 어디서,
    몇시에), a request to the one answering names nothing (알려줘), and the verb that closes
    the question is its stem, as a note writes it in another form (확정해 → 확정 of 확정하기로)."""

    def grams(question: str) -> list[str]:
        return [t for t in fts_query_terms(question) if len(t) == 2]

    assert grams("배포 일정은 누가 확정해?") == ["배포", "일정", "확정"]
    assert grams("누구랑 점심 먹었어?") == ["점심"]
    assert "먹" in fts_query_terms("누구랑 점심 먹었어?")
    assert grams("어디서 만났어?") == ["만났"]
    assert grams("회의는 몇시에 해?") == ["회의"]  # 해 alone: "do"
    assert grams("배포 일정 알려줘") == ["배포", "일정"]
    # a particle of one syllable leaves a word of two: 회의 and 속도 end so, 일정은 is 일정
    assert grams("이번 주 회의") == ["이번", "회의"]
    assert grams("속도가 느린 이유") == ["속도", "느린", "이유"]
    # a word that begins as a question word does only when the rest is a particle or ending
    assert "왜곡" in grams("왜곡된 데이터")
    # only the last word is a verb to cut: 해 inside a question stays
    assert "해외" in grams("해외 출장 언제야?")
    # an ending of one syllable only after a past tense: 어머니 ends in 니
    assert grams("우리 어머니") == ["우리", "어머", "머니"]
    assert grams("지진 피해") == ["지진", "피해"]


def test_japanese_question_words_only_in_japanese_questions() -> None:
    # 何 and 今 ask "what" and "now" in a question holding kana; in a Chinese one they are
    # parts of words, as the surname of 何佳 (searched for 佳 alone before)
    assert '"何佳"' in fts_query("何佳负责哪个 KR")
    assert fts_query("今は何を使っていますか") == '"使"'
    # in a Japanese question 何 asks "what" before a kana or a counter, not before the rest of
    # a name (it was searched for 佳 alone)
    assert fts_query("何佳って誰？") == '"何" OR "何佳" OR "佳"'
    assert fts_query("何回やった？") == '"回"'
    assert fts_query("何段階になった？") == fts_query("段階になった？")
    assert fts_query("会議は何曜日？") == fts_query("会議は曜日？")
    assert fts_query("何故遅れた？") == fts_query("故遅れた？")
    # the Chinese question words built on 何 are no terms
    assert fts_query("于何时完成") == '"于" OR "完" OR "完成" OR "成"'
    assert fts_query("从何种途径") == '"从" OR "途" OR "途径" OR "径"'


def test_case_3_cjk_runs_become_unigrams_and_bigrams() -> None:
    assert fts_query("金银价格") == '"金" OR "金银" OR "银" OR "银价" OR "价" OR "价格" OR "格"'
    # Unlike OpenClaw, which keeps 価: Han variants are folded to one form on both sides
    # (memdir.text.variants), so the Japanese 価格 finds the Chinese 价格 and back.
    assert fts_query("価格 2026年") == '"价" OR "价格" OR "格" OR "2026" OR "年"'


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


def test_contraction_and_possessive_fragments_are_no_terms() -> None:
    # "shouldn't" splits into "shouldn" + "t", "month's" into "month" + "s": neither half says
    # what a note is about, and in a bilingual memory each weighed as much as a content word.
    from memdir.text.stopwords import STOP_WORDS

    q = fts_query("Why shouldn't I regenerate the month's bills? We'd've", stopwords=STOP_WORDS)
    assert q == '"regenerate" OR "month" OR "bills"'
    # an identifier with a single letter stays one phrase
    assert fts_query("what is t-3305 doing", stopwords=STOP_WORDS) == '"t 3305" OR "doing"'


def test_question_adverbs_are_no_terms() -> None:
    from memdir.text.stopwords import STOP_WORDS

    q = fts_query("How much backoff does relay actually use nowadays?", stopwords=STOP_WORDS)
    assert q == '"backoff" OR "relay" OR "use"'
    assert fts_query("Which broker is relay currently on?", stopwords=STOP_WORDS) == (
        '"broker" OR "relay"'
    )


def test_document_expands_cjk_and_keeps_latin_words() -> None:
    assert fts_document("用PostgreSQL数据库").split() == [
        "用",
        "postgresql",
        "数",
        "数据",
        "据",
        "据库",
        "库",
    ]


def test_a_snake_case_name_is_also_one_word() -> None:
    """``max_replicas`` (which FTS5 holds as ``max`` and ``replicas``) is followed by
    ``maxreplicas``, the token a camelCase ``maxReplicas`` is: either spelling finds the other
    by one word."""
    assert fts_document("set `max_replicas: 32` and EVENTS_RAW_V2").split() == [
        "set",
        "max_replicas",
        "32",
        "and",
        "events_raw_v2",
        "maxreplicas",
        "eventsrawv2",
    ]
    # not a lone or doubled underscore's one part
    assert fts_document("__init__ _vN.json a_b").split() == ["__init__", "_vn", "json", "a_b", "ab"]
    # after the text, so that a code holding the name is still its phrase
    conn = _fts_table(["max_inflight=512 since Tuesday"])
    assert _found(conn, "max_inflight=512") == {0}
    conn = _fts_table(["autoscaling.maxReplicas: 32", "`max_replicas` is 32", "max replicas"])
    assert _found(conn, "maxReplicas") == {0, 1}
    # the phrase, as the words written apart: search bridges it to the one word
    assert _found(conn, "max_replicas") == {1, 2}


def test_a_hyphenated_name_is_also_one_word() -> None:
    """``relay-staging`` (FTS5's ``relay`` and ``staging``, as "relay staging" is) is followed
    by ``relaystaging``: whether a run of a question's words is one name in memory is then a
    look-up in the vocabulary. Each part starts with a letter: no code, date or version."""
    assert fts_document("Argo CD `relay-staging`, nats-relay-stg 的状态").split()[-2:] == [
        "relaystaging",
        "natsrelaystg",
    ]
    # read in the text as written, up to a dot: a file's name, not what a dot joins it to
    assert fts_document("deploy/relay/values-staging.yaml").split()[-1] == "valuesstaging"
    assert "relaydualwrite" not in fts_document("broker.relay-dual-write")
    for text in ("OPS-1234 on 2026-12-05", "v1.15.0-rc1", "x-1y", "a--b", "-flag"):
        assert fts_document(text) == " ".join(word_tokens(text)), text
    # a snake_case name and a hyphenated one in the same text, each once
    assert fts_document("max_replicas of relay-worker").split()[-2:] == [
        "maxreplicas",
        "relayworker",
    ]
    # after the text: the name is still its phrase, and the words apart are too
    conn = _fts_table(["deploy relay-staging now", "relay on staging", "relay staging"])
    phrase = conn.execute("SELECT rowid FROM t WHERE t MATCH ?", ['"relay staging"'])
    assert {r[0] for r in phrase} == {0, 2}
    assert _found(conn, "relaystaging") == {0}


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


# -- one tokenizer for the index and the query (issue #9, item 12) ------------------------------


def _fts_table(docs: list[str]) -> sqlite3.Connection:
    """An in-memory FTS5 table like the index's, row ``i`` holding ``fts_document(docs[i])``."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{FTS_TOKENIZE}')")
    conn.executemany(
        "INSERT INTO t(rowid, body) VALUES (?, ?)",
        [(i, fts_document(doc)) for i, doc in enumerate(docs)],
    )
    return conn


def _found(conn: sqlite3.Connection, query: str) -> set[int]:
    match = fts_query(query)
    assert match is not None, query
    return {r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,))}


@pytest.mark.parametrize(
    ("note", "queries"),
    [
        ("We flew to İstanbul in May.", ["İstanbul", "istanbul", "ISTANBUL"]),
        ("Call \u2068Zoë\u2069 about the lease.", ["Zoë", "zoe", "\u2068Zoë\u2069"]),
        ("The bot🤖 answered at night.", ["bot🤖", "bot"]),
        ("اشترينا كتاب\u061c جديد", ["كتاب", "كتاب\u061c"]),
        ("Это старый замо́к у реки.", ["замо́к", "замок"]),
        ("Die Straße ist gesperrt.", ["straße", "STRASSE"]),
        ("soft\u00adhyphen and zero\u200dwidth joiner", ["softhyphen", "zerowidth"]),
    ],
)
def test_words_the_index_holds_are_found_by_a_query_for_them(note: str, queries: list[str]) -> None:
    conn = _fts_table(["an unrelated note about lemons", note])
    for query in queries:
        assert _found(conn, query) == {1}, query


def test_a_zero_width_space_separates_words() -> None:
    assert word_tokens("ภาษา\u200bไทย") == ["ภาษา", "ไทย"]


def _pools() -> dict[str, list[str]]:
    """Code points by the part they play in a word, from the running Python's tables."""
    pools: dict[str, list[str]] = {"word": [], "mark": [], "format": [], "other": []}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        category = unicodedata.category(ch)
        if category[0] in "LN":
            pools["word"].append(ch)
        elif category[0] == "M":
            pools["mark"].append(ch)
        elif category == "Cf":
            pools["format"].append(ch)
        elif category in ("So", "Sk", "Po", "Cn", "Co"):  # emoji, new punctuation, unassigned
            pools["other"].append(ch)
    return pools


def _fts5_keeps(chars: list[str]) -> set[str]:
    """The characters FTS5's tokenizer, on its own, indexes as (part of) a token."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE p USING fts5(body, tokenize='{FTS_TOKENIZE}')")
    conn.execute("CREATE VIRTUAL TABLE pv USING fts5vocab(p, 'instance')")
    conn.executemany("INSERT INTO p(rowid, body) VALUES (?, ?)", list(enumerate(chars)))
    return {chars[r[0]] for r in conn.execute("SELECT DISTINCT doc FROM pv")}


def test_property_any_indexed_word_is_found_by_a_query_for_it() -> None:
    """Random words across all of Unicode (letters and digits of every script, with combining
    marks, format characters, emoji and unassigned code points mixed in), each written in a
    note among other words, are each found by a query for that word alone."""
    rng = random.Random(9)
    pools = _pools()
    starts = rng.sample(pools["word"], 3000)
    # A few letters are separators to FTS5 itself (U+19B0 NEW TAI LUE VOWEL SIGN...): a word
    # of nothing else has no token that could be indexed, by anyone.
    starts = sorted(_fts5_keeps(starts))
    words = ["İstanbul", "\u2068Zoë\u2069", "bot🤖", "كتاب\u061c", "замо́к"]
    for start in starts:
        chars = [start]
        for _ in range(rng.randrange(8)):
            kind = rng.choices(["word", "mark", "format", "other"], [6, 2, 1, 1])[0]
            chars.append(rng.choice(pools[kind]))
        words.append("".join(chars))
    notes = [f"note {i} starts {word} and ends" for i, word in enumerate(words)]
    conn = _fts_table(notes)
    missed = [(i, word) for i, word in enumerate(words) if i not in _found(conn, word)]
    assert missed == []


@pytest.mark.parametrize(
    ("term", "text", "held"),
    [
        ("deploy", "We deployed it on Friday", True),
        ("deploy", "the deploying team", True),
        ("policy", "two policies changed", True),
        ("go", "we went home", True),  # irregular forms: went → go
        ("ops 1234", "OPS-1234 rotated the cert", True),
        ("ops 1234", "OPS-12345 is another ticket", False),
        ("ops 1234", "ops and 1234 apart", False),
        ("proto 1026", "the Proto_1026 frame", True),  # FTS5 cuts at the underscore too
        ("proto 1026", "the Proto_10265 frame", False),
        ("relay", "relay的 p99 又飙到 2s 了", True),
        ("relay", "prerelay hooks", False),
        ("根因", "根因是 DNS 缓存过期", True),
        ("根因", "根本原因", False),
        ("v1 13 2", "rolled back to v1.13.2 at noon", True),
        ("v1 13 2", "rolled back to v1.13.20", False),
        # a number and the CJK after it, with or without a space (as FTS5 holds both)
        ("30 秒", "ack_wait 调到 30秒", True),
        ("30 秒", "ack_wait 调到 30 秒", True),
        ("30 秒", "ack_wait 调到 130 秒", False),
        ("30 秒", "30 个 秒杀", False),
    ],
)
def test_term_matcher_finds_the_term_as_the_index_would(term: str, text: str, held: bool) -> None:
    assert term_matcher(term)(match_text(text)) is held


def test_named_words_are_capitalised_where_no_sentence_starts() -> None:
    from memdir.text import named_words

    assert named_words("When did we add PayPal as a payment provider in ledger?") == {"paypal"}
    assert named_words("relay 什么时候从 Consul 换成 etcd 做服务发现的？") == {"consul"}
    assert named_words("Which ticket replaced the one closed at the Oct 13 EU meeting?") == {"eu"}
    assert named_words("Done. Then we met Tang Ning on Friday") == {"tang", "ning"}
    assert named_words("what did mo's team decide") == set()


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Which train does Mo take to Hangzhou?", {"train"}),
        ("How did she rate, and what database experience did she bring?", {"database"}),
        ("What kind of cake did we order?", {"cake"}),
        ("whose laptop was swapped, and which ticket replaced OPS-1324?", {"laptop", "ticket"}),
        ("What did we decide? Which is faster?", set()),  # no kind: a verb or pronoun follows
        ("What time step does the picker use?", set()),  # what time: the kind may come next
        ("Which of the two clusters?", set()),
        ("哪个集群先升级？", set()),  # English questions only
        ("A ligand which signals through kinases.", set()),  # a relative clause
        ("The rate at which cells convert strain, which causes fibrosis.", set()),
        ("In the bake-off, what sank the second contender?", set()),
        ("Done. What bug did Ken file?", {"bug"}),
        ("What happened with OPS-1324, and what went wrong?", set()),  # verbs in the past
        # a modifier or a number stands before the kind, and tells no more than it
        ("What other tools did we try?", {"other", "tools"}),
        (
            "Which new laptop did Mo get, and what 3 options were weighed?",
            {"new", "laptop", "3", "options"},
        ),
        ("What two cities did Sato visit?", {"two", "cities"}),
    ],
)
def test_asked_kinds_are_the_words_after_which_and_what(question: str, kinds: set[str]) -> None:
    from memdir.text import asked_kinds

    assert asked_kinds(question) == kinds


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("What was OPS-1324 about?", ["OPS-1324"]),
        ("`0x80AC` 和 max_inflight", ["0x80AC", "max_inflight"]),
        ("PR #482 改了什么", ["PR #482"]),
        ("PR #482改了什么", ["PR #482"]),  # a Han character right after ends the number
        ("issue #17 and v1.13.2", ["issue #17", "v1.13.2"]),
        ("p99 告警 on-call 1234", ["p99"]),  # a bare number and on-call are no identifiers
        ("nothing here", []),
    ],
)
def test_identifier_spans(text: str, names: list[str]) -> None:
    assert [text[a:b] for a, b in identifier_spans(text)] == names


def test_identifier_matching_starts_only_where_a_word_starts() -> None:
    """The lookbehind (and possessive runs) that keep a long word linear change no match: the
    spans are those of the plain pattern, on random text of word characters, separators, CJK and spaces."""
    from memdir.text import tokens

    pattern = tokens._IDENTIFIER.pattern
    plain = re.compile(pattern.replace(f"(?<!{tokens._WORD_CHAR})", "", 1).replace("++", "+"))
    assert plain.pattern != tokens._IDENTIFIER.pattern
    rng = random.Random(11)
    alphabet = "aZ9_-./:=#@+ 是ーé"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        spans = [m.span() for m in tokens._IDENTIFIER.finditer(text)]
        assert spans == [m.span() for m in plain.finditer(text)], text


def test_term_surfaces_gives_each_term_as_the_query_writes_it() -> None:
    query = "So what sank PayPal's OPS-9999 and max_inflight in 进展?"
    terms = fts_query_terms(query)
    shown = dict(zip(terms, term_surfaces(query, terms), strict=True))
    assert shown["paypal"] == "PayPal"
    assert shown["ops 9999"] == "OPS-9999"
    assert shown["max_inflight"] == "max_inflight"
    assert shown["sink"] == "sank"  # an irregular verb's base form, shown as the query's form
    assert shown["进展"] == "进展"
    assert term_surfaces("パッケージ管理は？", ["パッ", "管理"]) == ["パッケージ", "管理"]
    assert term_surfaces("무엇을 결정했나요?", ["정했", "결정"]) == ["결정했나요", "결정했나요"]
    assert term_surfaces("anything", ["nowhere"]) == ["nowhere"]


def test_a_kanji_pair_is_held_with_its_okurigana_between() -> None:
    held = term_matcher("受取")
    assert held(match_text("受け取り時間")) and held(match_text("受取時間"))
    assert not held(match_text("受けて取った"))  # two kana: no okurigana of one word
    assert not term_matcher("京会")(match_text("東京の会議"))  # a particle joins two words


def test_a_bridge_mixing_a_number_and_cjk_is_searched_as_the_document_holds_it() -> None:
    assert bridge_term("30 秒") == fts_document("30秒") == "30 秒"
    assert bridge_term("16.8 万") == fts_document("16.8万")
    assert bridge_term("13 分钟") == fts_document("13分钟") == "13 分 分钟 钟"
    assert bridge_term("connection pool") == "connection pool"
