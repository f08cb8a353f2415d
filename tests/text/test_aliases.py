"""Names a memory declares in both scripts (memdir.text.aliases)."""

from __future__ import annotations

from memdir.text.aliases import alias_bridges, declared, names_asked


def test_a_name_declared_beside_its_other_writing() -> None:
    text = (
        "- SRE: 老王 (Wang Tao). Manager: 周岚 (Zhou Lan).\n"
        "- Ken Ishida（石田健）: front-end.\n"
        "| 何佳 He Jia | backend |\n"
        "Contact: 佐藤健太 Sato Kenta — writes Japanese.\n"
        "# 佐々木 美穂（Sasaki Miho）\n"
    )
    assert set(declared(text)) == {
        ("老王", "wang tao"),
        ("周岚", "zhou lan"),
        ("石田健", "ken ishida"),
        ("何佳", "he jia"),
        ("佐藤健太", "sato kenta"),
        ("佐佐木美穗", "sasaki miho"),  # folded as search folds it, no space
    }


def test_a_name_at_the_end_of_a_longer_run_of_han() -> None:
    # the words before the name are no part of it: 同事老王 bridged Wang Tao to 同事 (colleague)
    text = "- 同事老王 (Wang Tao)：infra.\n我的上司陈默 (Mo Chen) 说…\n项目负责人孙悦 (Sun Yue)\n"
    assert list(declared(text)) == [("老王", "wang tao"), ("陈默", "mo chen"), ("孙悦", "sun yue")]
    # a dictionary word that reads as the Latin name, or translates it, is the name's own
    text = "欧阳明远 (Ouyang Mingyuan)、佐藤健太 (Sato Kenta)、和也 (Kazuya)"
    assert list(declared(text)) == [
        ("欧阳明远", "ouyang mingyuan"),
        ("佐藤健太", "sato kenta"),
        ("和也", "kazuya"),
    ]
    # more than a name is left: nothing, rather than a word bridged as a name
    assert list(declared("老同事王涛 (Wang Tao)")) == []


def test_an_annotation_is_no_name() -> None:
    # a dictionary word the Latin side does not translate, or a single English word
    text = (
        "「问题」文档（Confluence）、设计（Sakura）、Stripe（国际卡）、Vault（只读）、石田健（Ken）"
    )
    assert list(declared(text)) == []
    # a dictionary word that is the name: 佐藤 is Sato
    assert list(declared("佐藤 (Sato)")) == [("佐藤", "sato")]
    # side by side, one Latin word is no declaration: 跟 陈卓 对 Hanami is a sentence
    assert list(declared("16:00 跟 陈卓 对 Hanami 排期")) == []


def test_bridges_run_both_ways_between_the_two_writings() -> None:
    pairs = [("老王", "wang tao"), ("石田健", "ken ishida")]
    # the Latin name the question writes, whole or one word of it: the Han name's first two
    assert alias_bridges("What did Wang Tao say?", ["wang", "tao", "say"], pairs) == {
        "wang": ["老王"],
        "tao": ["老王"],
    }
    assert alias_bridges("Did Ken fix it?", ["ken", "fix"], pairs) == {"ken": ["石田"]}
    # a Han name's first two characters among the question's terms: the Latin words
    terms = ["石", "石田", "田", "バグ"]
    assert alias_bridges("石田さんが見つけたバグは？", terms, pairs) == {"石田": ["ken", "ishida"]}
    assert alias_bridges("老王说了什么", ["老王", "说"], pairs) == {"老王": ["wang", "tao"]}
    # a lower-case word is no name the question writes
    assert alias_bridges("ken burns effect", ["ken", "burns", "effect"], pairs) == {}


def test_a_name_before_a_bracket_holding_the_full_name_in_both_scripts() -> None:
    # the notes write the name before the bracket (小周); both Han names are the Latin one's
    text = (
        "# 小周（周一鸣 / Zhou Yiming）\n- 同事小李（李明，Li Ming）: QA\n- 老王（王涛 Wang Tao）\n"
    )
    assert list(declared(text)) == [
        ("周一鸣", "zhou yiming"),
        ("小周", "zhou yiming"),
        ("李明", "li ming"),
        ("小李", "li ming"),
        ("王涛", "wang tao"),
        ("老王", "wang tao"),
    ]
    pairs = list(declared(text))
    # a question naming one Han name reaches the other, and the Latin one reaches both
    terms = ["周", "周一", "一", "一鸣", "鸣"]
    assert alias_bridges("周一鸣最近在忙什么", terms, pairs) == {
        "周一": ["zhou", "yiming", "小周"],
        "一鸣": ["zhou", "yiming", "小周"],
    }
    assert alias_bridges("What is Zhou Yiming doing?", ["zhou", "yiming"], pairs) == {
        "zhou": ["周一", "小周"],
        "yiming": ["周一", "小周"],
    }


def test_a_name_that_begins_a_sentence_is_asked_without_the_sentence_s_capital_too() -> None:
    # "Did" is capitalised because the question starts there, not because it is a name
    assert names_asked("Did Wang Tao say anything?") == ["did wang tao", "wang tao"]
    assert names_asked("Thanks. Has Ken Ishida seen it?") == [
        "thanks",
        "has ken ishida",
        "ken ishida",
    ]
    # a name itself may begin the sentence: both readings are kept
    assert names_asked("He Jia said what?") == ["he jia", "jia"]
    # inside a sentence a run of capitals is one name
    assert names_asked("what did Wang Tao say?") == ["wang tao"]
