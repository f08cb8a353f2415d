"""Cross-language keyword matches through dictionary bridges (issue #11: a question in one
language about notes written in the other shared no word with them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir import Memory
from memdir.search import keyword
from memdir.search.keyword import query_profile
from memdir.text.stopwords import STOP_WORDS

from .helpers import write_notes


@pytest.fixture
def bilingual_notes(tmp_path: Path) -> Path:
    return write_notes(
        tmp_path,
        {
            "memory/2026-08-21.md": (
                "# 2026-08-21 周五\n\n"
                "### 10:10 - ATL-212\nDAU dashboard 比实际高 6%，dedupe 窗口改成 48h。\n\n"
                "### 12:30 - 吃饭\n午饭楼下兰州拉面，加了个蛋。\n\n"
                "### 16:00 - 面试\n唐宁 onsite 表现不错，MySQL 分库分表经验很扎实。\n"
            ),
            "memory/2026-10-23.md": (
                "# 2026-10-23 Fri\n\n### 09:30 - laptop\n"
                "Got the new computer: ThinkPad X1, asset TW-LT-0457.\n\n"
                "### 15:00 - deploy\nRelay v1.13.2 rolled out to staging.\n"
            ),
            "MEMORY.md": "# Memory\n\n- 老家杭州，父母住在那边。\n- Relay runs on NATS JetStream.\n",
        },
    )


def _first(ws: Path, query: str, **overrides: object) -> tuple[str, int] | None:
    settings = {"embedding.provider": "none", **overrides}
    with Memory(ws, overrides=settings) as mem:
        hits = mem.search(query)
    return (hits[0].path, hits[0].start_line) if hits else None


def test_an_english_question_finds_the_chinese_note(bilingual_notes: Path) -> None:
    assert _first(bilingual_notes, "What did I have for lunch?") == ("memory/2026-08-21.md", 6)


def test_a_chinese_question_finds_the_english_note(bilingual_notes: Path) -> None:
    # 电脑 → computer and 资产 → assets; 编号 is nowhere, and 新电 and 产编 are no words but
    # edges between them, which must not count as words memory lacks
    assert _first(bilingual_notes, "新电脑的资产编号") == ("memory/2026-10-23.md", 3)
    with Memory(bilingual_notes, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "新电脑的资产编号", stopwords=STOP_WORDS)
        assert profile is not None
        assert set(profile.weights) == {"电脑", "资产", "编号"}
        assert profile.bridges == {"电脑": ["computer"], "资产": ["assets"]}


def test_a_pinyin_name_finds_the_name_in_chinese(bilingual_notes: Path) -> None:
    assert _first(bilingual_notes, "How did Tang Ning do in the onsite?") == (
        "memory/2026-08-21.md",
        9,
    )


def test_a_place_name_in_pinyin(bilingual_notes: Path) -> None:
    assert _first(bilingual_notes, "Do my parents live in Hangzhou?") == ("MEMORY.md", 1)


def test_bridges_can_be_turned_off(bilingual_notes: Path) -> None:
    assert (
        _first(bilingual_notes, "What did I have for lunch?", **{"search.bridges": False}) is None
    )


def test_only_bridges_memory_holds_count(
    bilingual_notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the lacked word counted in full, as in a memory that writes enough English
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)
    with Memory(bilingual_notes, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "lunch train", stopwords=STOP_WORDS)
        assert profile is not None
        # 午饭 is in memory; none of the dictionary's words for "train" is
        assert profile.bridges == {"lunch": ["午饭"]}
        assert '"午饭"' in profile.match
        # "lunch" is held through its bridge, "train" is held nowhere
        assert profile.absent_share == pytest.approx(
            profile.weights["train"] / (profile.weights["train"] + profile.weights["lunch"])
        )
        off = query_profile(mem.index, "lunch train", stopwords=STOP_WORDS, bridges=False)
        assert off is not None and off.bridges == {}
        assert off.absent_share == 0.0  # memory holds neither word: nothing named is known


def test_an_exact_match_still_ranks_first(bilingual_notes: Path) -> None:
    # the English note that says "computer" outranks Chinese ones reached through bridges
    assert _first(bilingual_notes, "new computer asset") == ("memory/2026-10-23.md", 3)


def test_bridges_on_both_backends(bilingual_notes: Path, backend: dict[str, str]) -> None:
    assert _first(bilingual_notes, "What did I have for lunch?", **backend) == (
        "memory/2026-08-21.md",
        6,
    )


def test_a_bigram_inside_a_longer_word_is_no_edge(bilingual_notes: Path) -> None:
    # 终奖 is no word, but part of 年终奖 (year-end bonus), which memory lacks: it still counts
    with Memory(bilingual_notes, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "年终奖什么时候发", stopwords=STOP_WORDS)
        assert profile is not None
        assert {"年终", "终奖"} <= set(profile.weights)


def test_a_stop_word_is_no_bridge(tmp_path: Path) -> None:
    # 换成 is glossed "to exchange for; to replace with; to convert into": of its English
    # words only "replace" says anything
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n- We replace the broker with NATS.\n")
    with Memory(tmp_path, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "换成", stopwords=STOP_WORDS)
        assert profile is not None
        assert profile.bridges == {"换成": ["replace"]}


def test_a_lacked_name_counts_only_where_memory_writes_that_script(tmp_path: Path) -> None:
    # A Chinese memory would write Alice in Chinese: her name missing says nothing there. An
    # English memory that holds "lunch" itself but never "Alice" has never mentioned her.
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n- 午饭楼下兰州拉面。\n", encoding="utf-8")
    question = "What did Alice have for lunch?"
    with Memory(tmp_path, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, question, stopwords=STOP_WORDS)
        assert profile is not None and profile.bridges == {"lunch": ["午饭"]}
        assert not profile.lacks_a_name
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n- Bob had lunch at the noodle place.\n")
    with Memory(tmp_path, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, question, stopwords=STOP_WORDS)
        assert profile is not None and profile.lacks_a_name


def test_a_chinese_question_finds_the_japanese_note_written_with_other_characters(
    tmp_path: Path,
) -> None:
    # 佐佐木美穗 / 佐々木美穂 and 发热 / 発熱: one name and one word in two scripts' characters
    ws = write_notes(
        tmp_path,
        {
            "memory/2026-11-02.md": (
                "# 2026-11-02\n\n### 08:40 - 体調\n朝から38度の発熱。"
                "佐々木美穂さんに連絡して、打ち合わせは来週に延期。\n\n"
                "### 13:00 - 昼\n駅前のパン屋でサンドイッチ。\n"
            ),
            "memory/2026-11-03.md": "# 2026-11-03\n\n### 10:00 - 定例\n佐藤さんと週次の定例。\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        found = mem.search("佐佐木美穗 什么时候发热的？")
    assert found and (found[0].path, found[0].start_line) == ("memory/2026-11-02.md", 3)
    assert found.not_in_memory == ()


def test_a_longer_chinese_word_is_bridged_through_its_bigrams(tmp_path: Path) -> None:
    # 特斯拉 is cut into 特斯 and 斯拉, neither a word; the dictionary's 特斯拉 → tesla holds both
    ws = write_notes(
        tmp_path,
        {
            "memory/2026-09-01.md": (
                "# 2026-09-01 Tue\n\n### 10:00 - car\nMo ordered a Tesla Model Y, delivery in"
                " October.\n\n### 12:30 - lunch\nRamen downstairs.\n"
            ),
            "memory/2026-09-02.md": "# 2026-09-02 Wed\n\n### 09:00 - standup\n交付排期顺延一周。\n",
        },
    )
    assert _first(ws, "特斯拉什么时候到？") == ("memory/2026-09-01.md", 3)
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "特斯拉什么时候到？", stopwords=STOP_WORDS)
        assert profile is not None
        assert profile.bridges.get("特斯") == ["tesla"] and profile.bridges.get("斯拉") == ["tesla"]
        assert "特斯" not in profile.absent and "斯拉" not in profile.absent


_OKURIGANA_NOTES = {
    "memory/2026-11-05.md": "# 11/05\n\n"
    "- 10:00 Hanami の予約画面、受け取り時間の選択を 15 分刻みに\n"
    "- 11:30 QC の菜单页、加料の UI を再検討。Figma にコメント 12 件\n"
    "- 14:00 佐々木さんと定例。シュトーレンの撮影は来週、店舗写真は LINE で\n"
    "- 16:00 nimbus の token 命名、space 系を v1.0.0 で整理する案\n",
    # 受, 取 and 時間 too, in a short note, but not the word
    "memory/2026-11-06.md": "# 11/06\n\n- 受けて取った時間\n",
}


def test_a_japanese_word_is_found_however_its_okurigana_is_written(tmp_path: Path) -> None:
    ws = write_notes(tmp_path, _OKURIGANA_NOTES)
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        found = mem.search("受取時間")
    # the note writes 受け取り, and is the one holding the word
    assert found and found[0].path == "memory/2026-11-05.md"
    assert found[0].score > found[1].score


_LOANWORD_NOTES = {
    "memory/2026-11-10.md": (
        "# 11/10\n\n"
        "- 10:00 Ken とアクセシビリティのレビュー。フォーカスリングのコントラストが足りない\n"
        "- 15:00 来週のプランを作った。ランチは駅前\n"
    ),
    "memory/2026-11-11.md": (
        "# 11/11\n\n- 11:00 nimbus の新しいリリースを staging に出した\n"
        "- 16:00 nimbus のテスターを 5 人集めた\n"
    ),
    "memory/projects/atlas.md": "# atlas\n\n## Dev setup\n- package manager: uv (moved off poetry)\n",
}


def _path(ws: Path, query: str, **overrides: object) -> str | None:
    found = _first(ws, query, **overrides)
    return found[0] if found else None


def test_an_english_question_finds_the_katakana_loanword(tmp_path: Path) -> None:
    # accessibility → アクセシビリティ, testers → テスター (UniDic's loanword lemmas)
    ws = write_notes(tmp_path, _LOANWORD_NOTES)
    assert _path(ws, "What did the accessibility review find?") == "memory/2026-11-10.md"
    assert _path(ws, "How many testers did we find for nimbus?") == "memory/2026-11-11.md"
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "testers for the release", stopwords=STOP_WORDS)
        assert profile is not None
        assert profile.bridges == {"testers": ["テスター"], "release": ["リリース"]}
        assert profile.absent == ()


def test_a_japanese_question_finds_the_english_word_of_its_loanword(tmp_path: Path) -> None:
    # パッケージ → package: the grams of the loanword hold it, as 特斯拉 does tesla
    ws = write_notes(tmp_path, _LOANWORD_NOTES)
    assert _path(ws, "atlas のパッケージ管理には何を使っていますか？") == "memory/projects/atlas.md"
    # half-width katakana is read as the full-width word
    assert _path(ws, "atlas のﾊﾟｯｹｰｼﾞ管理は？") == "memory/projects/atlas.md"


def test_a_short_loanword_inside_a_longer_one_is_not_held(tmp_path: Path) -> None:
    # ラン (run) is written inside プラン (plan) and ランチ (lunch), デー (day) inside データ:
    # neither note says run, so "run" is a word memory lacks
    ws = write_notes(
        tmp_path, {**_LOANWORD_NOTES, "memory/data.md": "# data\n\n- データを集めた\n"}
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "run day review", stopwords=STOP_WORDS)
        assert profile is not None
        assert "run" not in profile.bridges and "day" not in profile.bridges
        assert profile.bridges["review"] == ["レビュー"]


def test_loanword_bridges_on_both_backends(tmp_path: Path, backend: dict[str, str]) -> None:
    # the loanword is counted as the phrase of its grams, then read in the chunks holding it
    ws = write_notes(
        tmp_path, {**_LOANWORD_NOTES, "memory/data.md": "# data\n\n- データを集めた\n"}
    )
    assert _path(ws, "What did the accessibility review find?", **backend) == "memory/2026-11-10.md"
    with Memory(ws, overrides={"embedding.provider": "none", **backend}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "run day review", stopwords=STOP_WORDS)
        assert profile is not None
        assert profile.bridges == {"review": ["レビュー"]}


def test_a_name_declared_in_both_scripts_bridges_questions_in_either(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    ws = write_notes(
        tmp_path,
        {
            "MEMORY.md": (
                "# Memory\n\n## People\n- 老王 (Wang Tao): infra lead, owns RabbitMQ.\n"
                "- Ken Ishida（石田健）: front-end.\n"
            ),
            "memory/2026-11-30.md": (
                "# 2026-11-30\n\n### 09:30 - standup\n"
                "- Ken 说 HNM-204 的按钮 focus ring 在 Safari 上不显示。\n"
                "- Ken 在 Firefox 上也看到了。\n\n"
                "### 12:10 - lunch\n和老王吃了兰州拉面。他说 RabbitMQ 集群下周要升级到 3.13。\n"
                "老王还说要先在 staging 试。\n"
            ),
            "memory/2026-12-01.md": "# 2026-12-01\n\n### 15:20 - bug\nHNM-204 fixed on Safari.\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none", **backend}) as mem:
        # pinyin reaches 王涛, not 老王: only MEMORY.md's declaration says who he is
        hits = mem.search("Wang Tao 说了什么关于 RabbitMQ?")
        assert ("memory/2026-11-30.md", 7) in [(h.path, h.start_line) for h in hits[:2]]
        # no dictionary knows that 石田 is Ken: the standup naming Ken answers
        hits = mem.search("石田さんは何を見つけた？")
        assert ("memory/2026-11-30.md", 3) in [(h.path, h.start_line) for h in hits[:2]]
        profile = query_profile(mem.index, "石田さんは何を見つけた？", stopwords=STOP_WORDS)
        assert profile is not None and "ken" in profile.bridges["石田"]
        # towards the form memory writes more often only: Ken (3 chunks) gains no 石田 (1)
        profile = query_profile(mem.index, "What did Ken see in Firefox?", stopwords=STOP_WORDS)
        assert profile is not None and "ken" not in profile.bridges


def test_a_nickname_declared_with_the_full_name_answers_for_it(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    # the people note declares 小周（周一鸣 / Zhou Yiming）; the logs write 小周 alone
    ws = write_notes(
        tmp_path,
        {
            "memory/people/zhou-yiming.md": "# 小周（周一鸣 / Zhou Yiming）\n\n- 实习生，motion design\n",
            "memory/2026-11-05.md": "# 2026-11-05\n\n- 09:30 小周发来 HNM-160 的 Lottie v3，42KB。\n",
            "memory/2026-11-06.md": "# 2026-11-06\n\n- 10:00 设计评审，讨论了 Lottie 的帧率。\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none", **backend}) as mem:
        assert mem.search("周一鸣发来的 Lottie 多大？")[0].path == "memory/2026-11-05.md"
        # the note declaring the name, which holds it as asked, may come first; the log
        # naming 小周 comes next, before the other log about Lottie
        paths = [h.path for h in mem.search("How big was Zhou Yiming's Lottie?")]
        assert "memory/2026-11-05.md" in paths[:2]
        assert "memory/2026-11-06.md" not in paths[: paths.index("memory/2026-11-05.md")]


def test_a_bridged_bigram_s_characters_are_held_with_it(tmp_path: Path) -> None:
    ws = write_notes(
        tmp_path,
        {
            "memory/2026-10-23.md": "# 2026-10-23\n\nGot the new computer: ThinkPad X1.\n",
            "memory/2026-10-24.md": "# 2026-10-24\n\n旧电脑卖了，手机充电器丢了。\n",
            "memory/2026-10-25.md": "# 2026-10-25\n\n大脑需要休息。\n",
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        profile = query_profile(mem.index, "电脑", stopwords=STOP_WORDS)
        assert profile is not None and profile.bridges == {"电脑": ["computer"]}
        assert set(profile.weights) == {"电", "电脑", "脑"}
        rows = {
            row.chunk.path: row.chunk
            for row, _ in keyword.keyword_search(mem.index, "电脑", 10, profile=profile)
        }
    # what each holds of the question, BM25 aside: the note writing "computer" holds 电 and
    # 脑 of 电脑 as it holds the word, as much as the note writing 电脑 (it held 电脑 alone)
    held = keyword.unpooled_scores(profile, list(rows.values()))
    by_path = {chunk.path: held[chunk.id] for chunk in rows.values()}
    assert by_path["memory/2026-10-23.md"] == pytest.approx(by_path["memory/2026-10-24.md"])
    assert by_path["memory/2026-10-23.md"] > by_path["memory/2026-10-25.md"]  # 脑 alone


def test_a_pinyin_name_written_straight_before_chinese(bilingual_notes: Path) -> None:
    # Chinese puts no space after a Latin name: "Tang Ning的" is the name Tang Ning, and
    # "Hangzhou吗" the place (a Han character is a word character to \b, which cut them off)
    assert _first(bilingual_notes, "Tang Ning的onsite表现怎么样？") == ("memory/2026-08-21.md", 9)
    assert _first(bilingual_notes, "父母住在Hangzhou吗？") == ("MEMORY.md", 1)


def test_a_pinyin_name_after_the_sentence_s_first_capital(bilingual_notes: Path) -> None:
    # "Did Tang Ning" was read as one name of three words, and Did is no pinyin: no bridge
    assert _first(bilingual_notes, "Did Tang Ning do well?") == ("memory/2026-08-21.md", 9)


def test_a_declared_name_after_the_sentence_s_first_capital(tmp_path: Path) -> None:
    ws = write_notes(
        tmp_path,
        {
            "MEMORY.md": "# Memory\n\n- 老王 (Wang Tao): infra lead.\n",
            "memory/2026-11-30.md": (
                "# 2026-11-30\n\n### 12:10 - lunch\n和老王吃了拉面。他说集群下周要升级到 3.13。\n"
            ),
        },
    )
    query = "Did Wang Tao say anything?"
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        # "did wang tao" was looked up as one phrase, written nowhere: the declaration unread
        profile = query_profile(mem.index, query, stopwords=STOP_WORDS)
        assert profile is not None and profile.bridges == {"wang": ["老王"], "tao": ["老王"]}
        # a memory of two notes: "say" is nowhere, so no note clears the floor
        hits = mem.search(query, min_score=0)
    assert ("memory/2026-11-30.md", 3) in [(h.path, h.start_line) for h in hits]


def test_a_declared_name_asked_in_the_other_order(tmp_path: Path) -> None:
    ws = write_notes(
        tmp_path,
        {
            "MEMORY.md": "# Memory\n\n- 老王 (Wang Tao): infra lead.\n- 佐藤健太 (Sato Kenta): partner.\n",
            "memory/2026-11-30.md": (
                "# 2026-11-30\n\n### 12:10 - lunch\n和老王吃了拉面。他说集群下周要升级到 3.13。\n"
            ),
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        # English writes a Chinese or Japanese name given name first: Tao Wang is the Wang
        # Tao MEMORY.md declares, and reaches the 老王 of the notes (the phrase "tao wang",
        # written nowhere, left the declaration unread)
        profile = query_profile(mem.index, "What did Tao Wang say?", stopwords=STOP_WORDS)
        assert profile is not None and profile.bridges == {"tao": ["老王"], "wang": ["老王"]}
        hits = mem.search("What did Tao Wang say?", min_score=0)
        assert ("memory/2026-11-30.md", 3) in [(h.path, h.start_line) for h in hits]
        # Kenta Sato: memory writes the name as declared only, so no bridge is needed
        profile = query_profile(mem.index, "Who is Kenta Sato?", stopwords=STOP_WORDS)
        assert profile is not None and "kenta" not in profile.bridges
