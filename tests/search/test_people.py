"""Questions asking who someone is find the note about them, not the entries naming them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir import Memory
from memdir.search.people import asks_who_it_is, is_about

from .helpers import write_notes


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("Who is He Jia?", "He Jia"),
        ("who's Priya", "Priya"),
        ("So who is Tang Ning?", "Tang Ning"),
        ("Who is He Jia and what does she do?", "He Jia"),
        ("What does Wang Tao do?", "Wang Tao"),
        ("What is Priya's role?", "Priya"),
        ("何佳是谁？", "何佳"),
        ("孙悦是做什么的？", "孙悦"),
        ("老王负责什么", "老王"),
        ("谁是周岚", "周岚"),
        ("Priya Nair是谁？", "Priya Nair"),
        ("佐々木さんって誰？", "佐々木"),
        ("佐々木 美穂さんはどんな人？", "佐々木 美穂"),
        ("マリコさんって誰？", "マリコ"),
        ("王老师是谁", "王老师"),  # one character left is no name
        ("김민수는 누구야?", "김민수"),
        # what they are responsible for
        ("What is Wang Tao responsible for?", "Wang Tao"),
        ("What does He Jia own?", "He Jia"),
        ("佐々木さんの担当は？", "佐々木"),
        ("佐々木さんは何を担当していますか？", "佐々木"),
    ],
)
def test_a_question_asking_who_someone_is_names_them(query: str, name: str) -> None:
    assert asks_who_it_is(query) == name


@pytest.mark.parametrize(
    "query",
    [
        "What does ch-atlas-01 do?",  # a code: what it is, asked of the code
        "who is the manager?",
        "Who is on call this week?",
        "何佳 review 了哪个 PR？",
        "What did He Jia say about the migration?",
        "Who is he?",
    ],
)
def test_other_questions_name_no_one(query: str) -> None:
    assert asks_who_it_is(query) is None


TABLE = "## 人\n| 名字 | 角色 |\n|--|--|\n| 周岚 Zhou Lan | 经理 |\n| 何佳 He Jia | backend |\n"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (TABLE, "何佳"),
        (TABLE, "He Jia"),
        ("- 何佳：backend，ledger co-owner", "何佳"),
        ("- Wang Tao: SRE, keeps the backup cron", "Wang Tao"),
        ("- **Priya Nair** (PM) — ledger", "Priya Nair"),
        ("# 佐々木 美穂（Sasaki Miho）\n\n- marketing lead", "Sasaki Miho"),
        ("# 佐々木 美穂（Sasaki Miho）", "佐々木 美穂"),
        ("---\naka: [Sasaki Miho, 佐々木さん]\n---", "Sasaki Miho"),
    ],
)
def test_a_line_introducing_someone_is_about_them(text: str, name: str) -> None:
    assert is_about(text, name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (TABLE, "经理"),  # a role is no first cell
        ("下午找何佳 review", "何佳"),
        ("- 周岚喜欢先看结论再看细节", "周岚"),  # a sentence opening with her
        ("周岚转达 Priya 的话：那家德国客户续约", "周岚"),
        ("### 14:00 - 1:1 周岚\n- 下半年周四下午有会", "周岚"),
        ("- Wang Tao fixed the cron", "Wang Tao"),
        ("参会：周岚、Mo、何佳", "何佳"),
    ],
)
def test_a_line_naming_someone_in_passing_is_not_about_them(text: str, name: str) -> None:
    assert not is_about(text, name)


@pytest.fixture
def team(tmp_path: Path) -> Path:
    # The table introducing 何佳, and 60 short entries naming her in passing: more than the
    # BM25 candidates of a search, each holding the name as often as the table does.
    days = {
        f"memory/2026-09-{d:02d}.md": f"# 2026-09-{d:02d}\n\n### 10:00 - review\n下午找何佳 review 第{d}个 PR。\n"
        f"\n### 15:00 - lunch\n和何佳去吃饭，聊了第{d}件事。\n"
        for d in range(1, 31)
    }
    return write_notes(
        tmp_path,
        {
            **days,
            "memory/people/team.md": "# 人\n\n"
            + TABLE
            + "| 林小雨 Lin Xiaoyu | designer |\n| 刘芳 Liu Fang | 财务 |\n",
        },
    )


@pytest.mark.parametrize("query", ["何佳是谁？", "Who is He Jia?", "何佳って誰？"])
def test_who_someone_is_is_answered_by_the_row_introducing_them(team: Path, query: str) -> None:
    with Memory(team, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        hits = mem.search(query, max_results=3, min_score=0.0).results
        assert hits[0].path == "memory/people/team.md"
        assert hits[0].start_line <= 7 <= hits[0].end_line  # the row of 何佳
        # the same name asked otherwise is matched as before: the entries first
        other = mem.search("何佳 review", max_results=3, min_score=0.0).results
        assert all(h.path != "memory/people/team.md" for h in other)


def test_what_someone_is_responsible_for_is_searched_by_their_name(tmp_path: Path) -> None:
    # 负责 is no word the row about 老王 holds, and 王负 (the gram across the name and the
    # verb) is held once, by an entry saying what else he took on: the question got nothing
    ws = write_notes(
        tmp_path,
        {
            "memory/people/team.md": "# 人\n\n| 名字 | 角色 |\n|--|--|\n| 老王 Wang Tao | SRE，兼 ledger-db DBA |\n",
            "memory/2026-09-07.md": "# 2026-09-07\n\n### 15:00 - review\n- pool 饱和告警老王负责\n",
            **{
                f"memory/2026-10-{d:02d}.md": f"# 2026-10-{d:02d}\n\n- 和老王对了第{d}个变更。\n"
                for d in range(1, 8)
            },
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        for query in ("老王负责什么？", "What is Wang Tao responsible for?"):
            hits = mem.search(query)
            assert hits and hits[0].path == "memory/people/team.md", query


def test_without_a_note_about_them_every_mention_keeps_its_score(tmp_path: Path) -> None:
    ws = write_notes(
        tmp_path,
        {"memory/2026-09-01.md": "# 2026-09-01\n\n- 下午找何佳 review。\n- 和老王吃饭。\n"},
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        asked = mem.search("何佳是谁？", min_score=0.0).results
        plain = mem.search("何佳", min_score=0.0).results
        assert asked and [r.score for r in asked] == pytest.approx([r.score for r in plain])
