"""Latest state first: a question about the present puts the newest close match first."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.search.recency import (
    asks_about_now,
    asks_the_first_time,
    asks_what_it_is,
    asks_whats_new,
    each_day_first,
    earliest_first,
    first_mention_first,
    latest_first,
    opens_a_line,
)


@pytest.mark.parametrize(
    "query",
    [
        "Which broker does relay use now?",
        "what is max_inflight currently",
        "these days who runs the standup",
        "现在 standup 几点开?",
        "now用的是哪个版本",  # an English cue written straight before Chinese
        "目前 atlas 用什么调度器",
        "最近用的是哪个版本",
        "今はどのツールを使っていますか",
        "지금 무엇을 사용하나요",
        # the next one planned is the newest plan
        "When is the next design review?",
        "次のデザインレビューっていつ？",
        "下次 1:1 是什么时候？",
        # the last time something happened is its latest entry
        "When did I last go to the dentist?",
        "When was my last haircut?",
        "上次看牙是什么时候？",
        "最后一次跟王蕾 1:1 是哪天",
        "前回の 1:1 はいつ？",
        "지난번 회의는 언제였어?",
        "what did Wang Tao say the last time we met",
    ],
)
def test_questions_about_the_present(query: str) -> None:
    assert asks_about_now(query)


@pytest.mark.parametrize(
    "query",
    [
        "Why did we choose NATS over Kafka?",
        "OPS-1243 的根因是什么",
        "Who approved the rollback in September?",
        "knowledge of the snowfall",  # "now" inside a word is not a cue
        "What happened the next day?",  # the day after something: the past
        "次の日に何があった？",
        "What is the last step of the runbook?",  # last says which step, not when
        "When was the first standup after the move?",
    ],
)
def test_questions_about_the_past_or_no_time(query: str) -> None:
    assert not asks_about_now(query)


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("When was the first standup after the move?", True),
        ("When did we first meet Sato?", True),
        ("When did Wang Tao first report the bug?", True),
        ("第一次看牙是什么时候？", True),
        ("这是首次出现这个错误吗", True),
        ("初めて上海に来たのはいつ？", True),
        ("처음 만난 게 언제야?", True),
        # first says which one, not when: the payment, a runbook's step
        ("Which ticket replaced it, and when did its first real payment come in?", False),
        ("What is the first step of the runbook?", False),
        ("When did I last go to the dentist?", False),
    ],
)
def test_questions_about_the_first_time(query: str, first: bool) -> None:
    assert asks_the_first_time(query) is first


def test_close_rivals_are_put_oldest_first_for_the_first_time() -> None:
    items = [
        ("october visit", 0.90, "2026-10-28"),
        ("undated curated note", 0.85, None),
        ("august visit", 0.80, "2026-08-06"),
        ("weak july match", 0.40, "2026-07-01"),
    ]
    order = earliest_first(items, lambda x: x[1], lambda x: x[2])
    assert [name for name, _, _ in order] == [
        "august visit",
        "october visit",
        "undated curated note",
        "weak july match",  # far below the best: not a rival
    ]


def test_each_day_of_a_range_comes_first_with_its_best_result() -> None:
    items = [
        ("busy day, standup", 0.96, "2026-08-10"),
        ("busy day, deploy", 0.96, "2026-08-10"),
        ("busy day, lunch", 0.95, "2026-08-10"),
        ("next day, standup", 0.95, "2026-08-11"),
        ("undated runbook", 0.94, None),
        ("day outside the range", 0.93, "2026-08-20"),
        ("last day, migration", 0.90, "2026-08-12"),
        ("last day, weak", 0.50, "2026-08-12"),
    ]
    days = ["2026-08-10", "2026-08-11", "2026-08-12"]
    order = [name for name, _, _ in each_day_first(items, lambda x: x[1], lambda x: x[2], days)]
    assert order == [
        "busy day, standup",
        "next day, standup",
        "last day, migration",
        "busy day, deploy",
        "busy day, lunch",
        "undated runbook",
        "day outside the range",
        "last day, weak",
    ]
    # a day whose best is far below the best result is not brought up
    far = [("a", 1.0, "2026-08-10"), ("b", 0.9, "2026-08-10"), ("c", 0.3, "2026-08-11")]
    assert each_day_first(far, lambda x: x[1], lambda x: x[2], days) == far


def test_each_note_of_a_day_comes_first_with_its_best_result() -> None:
    """The five sections of a cutover's notes, dated its day, came ahead of the day's log."""
    items = [
        ("cutover notes, title", 0.96, "2026-10-28", "memory/2026-10-28-cutover.md"),
        ("cutover notes, checklist", 0.96, "2026-10-28", "memory/2026-10-28-cutover.md"),
        ("cutover notes, timeline", 0.96, "2026-10-28", "memory/2026-10-28-cutover.md"),
        ("the day's log, standup", 0.95, "2026-10-28", "memory/2026-10-28.md"),
        ("the day's log, lunch", 0.95, "2026-10-28", "memory/2026-10-28.md"),
        ("another day's log", 0.95, "2026-10-27", "memory/2026-10-27.md"),
    ]
    order = each_day_first(
        items, lambda x: x[1], lambda x: x[2], ["2026-10-28"], note=lambda x: x[3]
    )
    assert [name for name, *_ in order][:3] == [
        "cutover notes, title",
        "the day's log, standup",
        "cutover notes, checklist",
    ]
    # without the notes told apart, one day's best is first already: the order stays
    assert each_day_first(items, lambda x: x[1], lambda x: x[2], ["2026-10-28"]) == items


def test_the_last_and_the_first_time_something_happened(tmp_path: Path) -> None:
    from memdir import Memory

    from .helpers import write_notes

    ws = write_notes(
        tmp_path,
        {
            f"memory/2026-{month}.md": f"# 2026-{month}\n\n### 16:30 - 牙医\n{text}\n"
            for month, text in (
                ("08-06", "下午去看牙，补了一颗。"),
                ("09-24", "去看牙，洗了牙。"),
                ("11-05", "又去看牙，拍了片子。"),
            )
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        assert mem.search("上次看牙是什么时候？")[0].path == "memory/2026-11-05.md"
        assert mem.search("When did I last see the 牙医?")[0].path == "memory/2026-11-05.md"
        assert mem.search("第一次看牙是什么时候？")[0].path == "memory/2026-08-06.md"


def _order(items: list[tuple[str, float, str | None]], **kw: float) -> list[str]:
    return [
        name
        for name, _, _ in latest_first(items, lambda x: x[1], lambda x: x[2], **kw)  # type: ignore[arg-type]
    ]


def test_close_rivals_are_put_newest_first() -> None:
    items = [
        ("august choice", 0.90, "2026-08-06"),
        ("october migration done", 0.80, "2026-10-28"),
        ("undated curated note", 0.85, None),
        ("september detail", 0.75, "2026-09-02"),
        ("weak november match", 0.40, "2026-11-27"),
    ]
    assert _order(items) == [
        "october migration done",
        "september detail",
        "august choice",
        "undated curated note",
        "weak november match",  # far below the best: not a rival, stays where it was
    ]


def test_a_clear_winner_is_not_displaced_by_a_newer_weak_match() -> None:
    items = [("the answer", 0.9, "2026-08-01"), ("newer, unrelated", 0.5, "2026-11-01")]
    assert _order(items) == ["the answer", "newer, unrelated"]


def test_a_result_naming_the_questions_identifier_is_a_rival_further_down() -> None:
    # "What is ledger.retry.max_attempts now?": the project note with the old value scores
    # best; the day the setting changed is a whole day's list, diluted, at half the score
    items = [
        ("project note, old value", 0.78, None),
        ("the storm, old value", 0.67, "2026-11-12"),
        ("unrelated, newer", 0.52, "2026-11-20"),
        ("the change, diluted", 0.43, "2026-11-17"),
        ("too weak", 0.20, "2026-11-30"),
    ]
    names = {"project note, old value", "the storm, old value", "the change, diluted", "too weak"}

    def order(**kw: object) -> list[str]:
        ranked = latest_first(items, lambda x: x[1], lambda x: x[2], **kw)  # type: ignore[arg-type]
        return [name for name, _, _ in ranked]

    assert order(named=lambda x: x[0] in names) == [
        "the change, diluted",
        "the storm, old value",
        "unrelated, newer",  # names nothing: keeps its place
        "project note, old value",  # undated: after the dated ones
        "too weak",  # under NAMED_RIVAL of the best
    ]
    # without names only the close rival moves; the change stays fourth
    assert order()[:4] == [
        "the storm, old value",
        "project note, old value",
        "unrelated, newer",
        "the change, diluted",
    ]


def test_how_many_rivals_and_how_close_are_bounded() -> None:
    items = [(f"n{i}", 1.0, f"2026-11-{i:02d}") for i in range(1, 9)]
    assert _order(items, rivals=3) == ["n3", "n2", "n1", "n4", "n5", "n6", "n7", "n8"]
    assert _order([("a", 1.0, "2026-01-01"), ("b", 0.0, "2026-12-01")]) == ["a", "b"]
    assert _order([]) == []


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("What was OPS-1324?", "OPS-1324"),
        ("What was ATL-212 about?", "ATL-212"),
        ("what is the ticket BILL-463", "BILL-463"),
        ("What happened in OPS-1243?", "OPS-1243"),
        ("What does max_inflight mean?", "max_inflight"),
        ("Tell me about v1.13.2", "v1.13.2"),
        ("explain the error 0x80AB", "0x80AB"),
        ("What is the change request CHG-2208?", "CHG-2208"),
        ("What was the branch feat/adyen-sandbox for?", "feat/adyen-sandbox"),
        ("OPS-1243 是什么事故？", "OPS-1243"),
        ("`0x80AC` 是什么错误？", "0x80AC"),
        ("ATL-305 修的是什么 bug？", "ATL-305"),
        ("PR #482 改了什么？", "PR #482"),
        ("什么是 RELAY_E_POOL_EXHAUSTED", "RELAY_E_POOL_EXHAUSTED"),
        ("0x80AC とは何ですか", "0x80AC"),
    ],
)
def test_questions_asking_what_an_identifier_is(query: str, named: str) -> None:
    assert asks_what_it_is(query) == named


@pytest.mark.parametrize(
    "query",
    [
        "What is ledger.retry.max_attempts set to at the moment?",  # a value, not what it is
        "Who fixed OPS-12?",
        "What were OPS-1 and OPS-2?",  # two identifiers
        "What was the relay outage about?",  # no identifier
        "週次フィード `hoshimi_weekly` のチケット番号は何ですか？",  # asks for another thing
        "OPS-1243 的根因是什么？",
        "What is the status of OPS-1243?",  # its latest state, not what it is
        "What was the root cause of OPS-1243?",
        "OPS-1243 是什么时候修的？",  # when, not what
        "8/18 做了什么？",  # a day, not an identifier
        "what happened on 10/28?",
    ],
)
def test_other_questions_do_not_ask_what_an_identifier_is(query: str) -> None:
    assert asks_what_it_is(query) is None


def _first(items: list[tuple[str, float, tuple[str, str, int] | None]]) -> list[str]:
    return [name for name, _, _ in first_mention_first(items, lambda x: x[1], lambda x: x[2])]  # type: ignore[arg-type]


def test_the_first_mention_of_an_identifier_comes_first() -> None:
    items = [
        ("short later mention", 0.99, ("2026-10-05", "memory/2026-10-05.md", 3)),
        ("reference table", 0.97, None),
        ("mitigated, same day", 0.98, ("2026-10-03", "memory/2026-10-03.md", 26)),
        ("opening entry", 0.95, ("2026-10-03", "memory/2026-10-03.md", 6)),
        ("weak older match", 0.30, ("2026-09-01", "memory/2026-09-01.md", 1)),
    ]
    assert _first(items) == [
        "opening entry",  # oldest day, earliest line of that day
        "reference table",  # undated or not naming it: keeps its place
        "mitigated, same day",
        "short later mention",
        "weak older match",  # not a close rival: stays where it was
    ]
    assert _first(items[:1]) == ["short later mention"]
    assert _first([]) == []


def test_rivals_about_the_identifier_come_before_those_naming_it_in_passing() -> None:
    # "What was ATL-212 about?": the project note's config line names it in passing and scores
    # best; the ticket table's row and the day's entry open with it
    items = [
        ("config, in passing", 0.99, None),
        ("versions, in passing", 0.98, None),
        ("ticket table row", 0.93, None),
        ("the day's entry", 0.85, ("2026-08-21", "memory/2026-08-21.md", 3)),
    ]
    passing = {"config, in passing", "versions, in passing"}
    ranked = first_mention_first(
        items, lambda x: x[1], lambda x: x[2], in_passing=lambda x: x[0] in passing
    )
    assert [name for name, _, _ in ranked] == [
        "ticket table row",
        "the day's entry",
        "config, in passing",
        "versions, in passing",
    ]


@pytest.mark.parametrize(
    ("line", "about"),
    [
        ("- 10:10 ATL-212: DAU dashboard is 6% high", True),
        ("| ATL-212 | DAU double counting | done |", True),
        ("### 10:20 - ledger: 重试风暴（BILL-463）", True),  # a heading naming it
        ("1. **ATL-212** fixed the window", True),
        ("- [x] atl-212 closed", True),
        ("- v0.9.3 (2026-08-18) — exposed the dedupe window problem (ATL-212)", False),
        ("- `dedupe_window_hours: 48` since ATL-212", False),
        ("- nothing about it", False),
    ],
)
def test_a_line_about_an_identifier_opens_with_it(line: str, about: bool) -> None:
    assert (
        opens_a_line(f"# note\n\n{line}\n- more", "ATL-212" if "BILL" not in line else "BILL-463")
        is about
    )


def test_the_day_a_setting_changed_answers_what_it_is_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The project note still gives the old value and is short; the day the value changed is a
    # long day's list, which scores under the close-rival share of the best: it names the
    # setting, so it still comes first for a question about the present
    from memdir import Memory
    from memdir.search import recency

    from .helpers import write_notes

    day = ["# 2026-11-17", ""] + [
        f"- 0{h}:00 standup, reviews and lunch, item {h}" for h in range(1, 10)
    ]
    day.insert(6, "- 10:30 BILL-463 live: `ledger.retry.max_attempts: 3`, backoff 500ms + jitter")
    ws = write_notes(
        tmp_path,
        {
            "memory/projects/ledger.md": "# ledger\n\n## Config\n- `ledger.retry.max_attempts=5`\n",
            "memory/2026-11-17.md": "\n".join(day) + "\n",
            **{
                f"memory/2026-10-{d:02d}.md": f"# 2026-10-{d:02d}\n\n- relay deploy {d}, on-call notes\n"
                for d in range(1, 9)
            },
        },
    )
    question = "What is ledger.retry.max_attempts now?"
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        first = mem.search(question)[0]
        assert first.path == "memory/2026-11-17.md"
        monkeypatch.setattr(recency, "NAMED_RIVAL", 1.0)  # as before: only close rivals
        assert mem.search(question)[0].path == "memory/projects/ledger.md"


@pytest.mark.parametrize(
    ("query", "frame"),
    [
        ("老王最近在忙什么？", ["最近", "在忙什么"]),
        ("What has He Jia been up to lately?", ["been up to", "lately"]),
        ("relay 最近有什么进展？", ["最近", "有什么进展"]),
        ("What's the latest on atlas?", ["the latest on"]),
        ("Any updates on ledger lately?", ["Any updates on", "lately"]),
        ("何佳最近怎么样？", ["最近", "怎么样"]),
        ("Zhou Lanさんは最近何をしていますか？", ["さんは最近", "何をしていますか"]),
        ("ledger の最近の状況は？", ["の最近の", "状況は"]),
        ("老王近况如何？", ["近况如何"]),
        # how far something has come, with no word of time
        ("atlas 进展如何？", ["进展如何"]),
        ("目前校招那个 HC 进展到哪一步了？", ["进展到哪一步了"]),
        ("What's the status of atlas?", ["What's the status of"]),
        ("ledger の進捗は？", ["の進捗は"]),
        ("How is the PG 16 upgrade going?", ["How is ", "going"]),
        ("What is Priya working on lately?", ["working on", "lately"]),
        ("Any progress on BILL-474?", ["Any progress on"]),
    ],
)
def test_questions_asking_what_is_new(query: str, frame: list[str]) -> None:
    assert [query[a:b] for a, b in asks_whats_new(query)] == frame


@pytest.mark.parametrize(
    "query",
    [
        "最近的 p99 是多少？",  # a time alone asks about the present: latest_first answers
        "What did I change recently?",
        "relay 的 p99 告警阈值目前是多少？",
        "How is the retry backoff configured?",
        "老王在忙什么？",  # no word of time or news: what he does, not what is new
        "How is going to prod planned?",
        # a word of doing inside a longer question says what it is about (LoCoMo)
        "What did Tim recently start learning in addition to working on studies?",
        "Why had Evan been going through a tough time lately?",
    ],
)
def test_other_questions_do_not_ask_what_is_new(query: str) -> None:
    assert asks_whats_new(query) == []


def test_what_is_new_about_someone_is_their_newest_entries(tmp_path: Path) -> None:
    # 老王 is named in short entries of every month and in long lists of the last days: the
    # newest entries naming him answer, though BM25 likes the short old ones best, and the
    # words asking (最近, 在忙什么, been up to) are no terms a note must hold
    from datetime import date

    from memdir import Memory

    from .helpers import write_notes

    notes = {
        f"memory/2026-{m:02d}-{d:02d}.md": f"# 2026-{m:02d}-{d:02d}\n\n### 10:00 - sync\n和老王对了一下 relay。\n"
        for m in (8, 9, 10)
        for d in (3, 10, 17, 24)
    }
    filler = [
        f"- {h:02d}:00 standup, reviews, lunch and the weekly report, item {h}"
        for h in range(8, 18)
    ]
    for day, line in (
        ("2026-11-20", "- 15:00 老王在做 ClickHouse 扩容，加了三块盘"),
        ("2026-11-24", "- 16:00 老王在准备 PG 16 升级的 rehearsal"),
    ):
        notes[f"memory/{day}.md"] = (
            "\n".join([f"# {day}", "", *filler[:5], line, *filler[5:]]) + "\n"
        )
    ws = write_notes(tmp_path, notes)
    today = date(2026, 11, 26)
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        for question in ("老王最近在忙什么？", "What has 老王 been up to lately?"):
            found = mem.search(question, today=today)
            assert [r.path for r in found[:2]] == ["memory/2026-11-24.md", "memory/2026-11-20.md"]
        # how far something has come: the newest entry naming relay (the long lists do not)
        for question in ("relay 进展如何？", "What's the status of relay?"):
            assert mem.search(question, today=today)[0].path == "memory/2026-10-24.md"
