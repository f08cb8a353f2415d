"""Keyword search on memory shaped like our users': identifiers, CJK questions, long notes.

Each test is one failure class of issue #11, checked through the public API at the default
score floor (search.min_score = .35), in keyword mode.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from memdir import Memory
from memdir.search.keyword import query_profile

from .helpers import write_notes

KEYWORD_ONLY = {"embedding.provider": "none"}


def _paths(mem: Memory, query: str) -> list[str]:
    return [hit.path for hit in mem.search(query, mode="keyword")]


def _ops_tickets() -> dict[str, str]:
    """Forty routine OPS tickets and OPS-1234, a note each."""
    files = {
        f"memory/ops-{n}.md": f"OPS-{n}: routine ticket about disk space {n}\n"
        for n in range(1200, 1240)
    }
    files["memory/ops-1234.md"] = "OPS-1234 rotated the expiring TLS cert\n"
    return files


def test_an_identifier_is_matched_as_a_whole_not_as_its_parts(tmp_path: Path) -> None:
    files = _ops_tickets()
    files["memory/ops-1243.md"] = "OPS-1243 fixed the retry storm in relay\n"
    files["memory/other.md"] = "1234 is also the PIN of the test phone, 13 of 2 left\n"
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # As loose words ("ops" OR "1234") the 40 other OPS tickets and the PIN note compete;
        # as a phrase only the note that names OPS-1234 matches.
        assert _paths(mem, "OPS-1234") == ["memory/ops-1234.md"]
        assert _paths(mem, "what did OPS-1234 do?")[0] == "memory/ops-1234.md"
        assert _paths(mem, "v1.13.2") == []  # nothing names that version, though 13 and 2 occur
        (tmp_path / "memory" / "rel.md").write_text("relay v1.13.2 shipped the ack fix\n")
        mem.sync()
        assert _paths(mem, "v1.13.2")[0] == "memory/rel.md"


def test_a_chinese_question_about_a_ticket_finds_it(tmp_path: Path) -> None:
    files = {
        "memory/2026-09-07.md": "TICKET-77 复盘：根因是 DNS 缓存过期，回滚后恢复。\n",
        "memory/2026-09-08.md": "TICKET-78 只是文档更新。\n",
        "memory/2026-09-09.md": "午饭吃了牛肉面，下午开会讨论季度计划。\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # The question's function words (那次, 的, 是, 什么) and the bigrams that straddle them
        # appear in no note; they used to keep their IDF and sink the match under the floor.
        hits = mem.search("TICKET-77 那次的根因是什么?", mode="keyword")
        assert [h.path for h in hits][:1] == ["memory/2026-09-07.md"]
        assert hits[0].score >= 0.35


def test_the_one_word_a_long_note_holds_is_not_hidden(tmp_path: Path) -> None:
    files = {f"memory/short-{n}.md": f"sync note {n}\n" for n in range(100)}
    lines = [" ".join(f"w{i}x{j}" for j in range(12)) for i in range(60)]
    lines.insert(30, "the zephyrine valve was replaced")
    files["memory/long.md"] = "\n".join(lines) + "\n"
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        hits = mem.search("zephyrine", mode="keyword")
        # BM25's length normalisation scored its full-size chunk 0.10 among the tiny notes,
        # and "No matches." was printed.
        assert [h.path for h in hits][:1] == ["memory/long.md"]
        assert hits[0].start_line <= 31 <= hits[0].end_line
        assert hits[0].score >= 0.35


def test_a_word_memory_never_saw_does_not_sink_a_full_match(tmp_path: Path) -> None:
    files = {
        "memory/a.md": "The narwhal exporter writes invoices to the billing bucket.\n",
        "memory/b.md": "Lunch was noodles.\n",
        "memory/c.md": "The weekly sync moved to Tuesday.\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        assert _paths(mem, "narwhal exporter invoices quokkas") == ["memory/a.md"]
        # ... but a question about something memory never mentions is answered with nothing.
        assert _paths(mem, "quokkas kangaroos wombats noodles") == []


def test_what_a_ticket_was_is_answered_where_it_was_opened(tmp_path: Path) -> None:
    files = {
        "memory/2026-10-03.md": (
            "# 2026-10-03\n\n### 08:30 - cert expired\n"
            "The relay-nats-client TLS cert expired at 08:00, so every shadow publish to NATS\n"
            "failed with 0x80C3 for two hours while RabbitMQ stayed primary. Opened OPS-1324.\n"
        ),
        "memory/2026-10-05.md": "# 2026-10-05\n\n### 10:00 - check\nQuiet since OPS-1324.\n",
        "memory/2026-10-09.md": "# 2026-10-09\n\n### 09:00 - OPS-1324\nClosed OPS-1324.\n",
        "memory/projects/codes.md": "# Error codes\n\n| 0x80C3 | TLS | see OPS-1324 |\n",
        "memory/2026-09-01.md": "# 2026-09-01\n\n### 09:00 - standup\nNothing was opened.\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # The later one-line mentions are short and score as well as the entry that opened
        # the ticket; for "what was it" the first mention in the logs comes first.
        assert _paths(mem, "What was OPS-1324?")[0] == "memory/2026-10-03.md"
        assert _paths(mem, "Tell me about OPS-1324")[0] == "memory/2026-10-03.md"
        # Another question about it keeps the order by score.
        assert _paths(mem, "OPS-1324 closed")[0] == "memory/2026-10-09.md"


def test_asked_what_a_ticket_is_a_note_not_naming_it_comes_after(tmp_path: Path) -> None:
    files = {
        "memory/projects/ledger.md": (
            "# ledger\n\n## 已知问题\n- 问题一：webhook 不幂等\n- 问题二：PG 13 到期，问题很多\n"
        ),
        "memory/2026-11-17.md": (
            "# 2026-11-17\n\n- 09:30 standup, nothing new\n- 12:00 lunch with the team\n"
            "- 14:00 BILL-466：新的 invoice PDF 模板里中文公司名显示成方块，镜像里没装 CJK 字体\n"
            "- 15:30 got the new Figma template from the designer\n"
        ),
    }
    for day, note in enumerate(
        ["the weekly sync moved to Thursday", "paired with Lin on the retry storm",
         "read the NATS JetStream docs", "dentist at 15:00", "booked the train to Hangzhou",
         "午饭吃了牛肉面", "下午开会讨论季度计划"],
        start=20,
    ):  # fmt: skip
        files[f"memory/2026-11-{day}.md"] = f"# 2026-11-{day}\n\n- 10:00 {note}\n"
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # The note headed 已知问题 matches the question's other word (问题) best, but it is not
        # about BILL-466; the one line naming the ticket answers what it is.
        # (The order is the point here: in so small a memory both score under the floor.)
        hits = mem.search("BILL-466 是什么问题？", mode="keyword", min_score=0)
        assert [h.path for h in hits][:2] == ["memory/2026-11-17.md", "memory/projects/ledger.md"]


def test_a_ticket_is_found_however_it_is_typed(tmp_path: Path) -> None:
    files = {
        f"memory/2026-09-{n - 400:02d}.md": f"# 2026-09-{n - 400:02d}\n\nBILL-{n}: routine fix {n}\n"
        for n in range(401, 430)
        if n != 421
    }
    files["memory/2026-09-11.md"] = "# 2026-09-11\n\n首尔的客户反馈金额多了 100 倍，开 BILL-421。\n"
    files["memory/2026-09-14.md"] = "# 2026-09-14\n\nBILL-421 找到了：KRW 漏了。\n"
    files["memory/notes/runbook.md"] = "# runbook\n\n## 常见问题\n- 问题很多的时候先看 BILL-421\n"
    files["memory/2026-09-22.md"] = (
        "# 2026-09-22\n\nflights: 9/23 MU523 PVG → NRT, Proto_1026 frame\n"
    )
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # bill421 is one token no note holds, and BILL 421 two loose words that every BILL
        # ticket and any 421 matched; each is the BILL-421 the notes write
        for asked in ("bill421", "BILL421 的客户", "BILL 421", "what happened with BILL 421?"):
            response = mem.search(asked, mode="keyword")
            assert not [w for w in response.not_in_memory if "421" in w], asked
            assert "BILL-421" in response.results[0].snippet, asked
        # asked what it is, it is ranked as the ticket written as the notes write it, not as
        # a ticket no note names (every result a quarter: nothing above the floor)
        assert _paths(mem, "BILL421 是什么问题？") == _paths(mem, "BILL-421 是什么问题？")
        assert len(_paths(mem, "BILL421 是什么问题？")) == 3
        # and the other way: the notes' MU523 asked as MU-523 or MU 523, Proto_1026 as
        # Proto-1026
        for asked in ("MU-523", "MU 523 几点起飞", "proto1026", "Proto-1026"):
            assert _paths(mem, asked) == ["memory/2026-09-22.md"], asked
        # a ticket memory does not hold is still one it lacks
        assert _paths(mem, "bill999") == []
        assert mem.search("bill999", mode="keyword").not_in_memory == ("bill999",)


def test_a_holiday_is_its_days_and_still_a_word(tmp_path: Path) -> None:
    files = {
        f"memory/2026-10-{d:02d}.md": f"# 2026-10-{d:02d}\n\n### 10:00 - note\n{text}\n"
        for d, text in (
            (3, "在杭州爬了北高峰，晚上吃了片儿川。"),
            (12, "周会，对了一下 Q4 的 OKR。"),
            (20, "写了季度总结的初稿。"),
        )
    }
    files["memory/2026-09-28.md"] = (
        "# 2026-09-28\n\n### 09:00 - 计划\n国庆的高铁票买好了：10/1 G7311。\n"
    )
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # the holiday's logs say nothing of it: its days find them
        hits = mem.search("国庆去哪玩了？", mode="keyword", min_score=0, today=date(2026, 11, 30))
        assert {h.path for h in hits[:2]} == {"memory/2026-10-03.md", "memory/2026-09-28.md"}
        # and the note naming it is still found by the word
        hits = mem.search("国庆的高铁买了吗", mode="keyword", today=date(2026, 11, 30))
        assert hits.results[0].path == "memory/2026-09-28.md"


def test_a_version_is_found_with_or_without_its_v(tmp_path: Path) -> None:
    files = {
        f"memory/2026-09-{n:02d}.md": f"# 2026-09-{n:02d}\n\nrelay v1.13.{n} shipped, routine.\n"
        for n in range(3, 9)
    }
    files["memory/2026-09-02.md"] = "# 2026-09-02\n\nrelay v1.13.2 shipped the ack fix.\n"
    files["memory/notes/python.md"] = "# python\n\nThe image moved to Python 3.12.4 in October.\n"
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # 1.13.2 is the phrase "1 13 2", which the v1.13.2 of the notes ("v1 13 2") is not
        with_v, without = (mem.search(q, mode="keyword") for q in ("relay v1.13.2", "relay 1.13.2"))
        assert [h.path for h in without][:1] == ["memory/2026-09-02.md"]
        # … scored as if asked as the notes write it
        assert without.results[0].score == with_v.results[0].score
        assert without.not_in_memory == ()
        assert _paths(mem, "what changed in v3.12.4?") == ["memory/notes/python.md"]
        assert _paths(mem, "relay 1.13.9") == []  # a version memory does not hold


def test_a_code_typed_as_two_lower_case_words(tmp_path: Path) -> None:
    rows = "".join(f"| owner | 问题 {n} | HNM-{n} |\n" for n in range(101, 112))
    files = {
        "memory/meetings/kickoff.md": f"# kickoff\n\n## Action items\n{rows}",
        "memory/2026-10-30.md": (
            "# 2026-10-30\n\n- 09:30 standup\n"
            "- 16:00 HNM-147 注文完了画面に「受取時間を変える」ボタン。\n- 17:00 买了 147 元的咖啡豆\n"
        ),
        "memory/notes/counter.md": "# counter\n\nThe int32 counter overflowed at 2^31.\n",
    }
    for n in range(112, 140):
        files[f"memory/2026-09-{n - 110:02d}.md"] = (
            f"# 2026-09-{n - 110:02d}\n\n- 10:00 HNM-{n} fixed\n"
        )
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # as loose words, the table naming eleven HNM tickets and 问题 in every row came first
        hits = mem.search("hnm 147 是什么问题？", mode="keyword", min_score=0)
        assert [h.path for h in hits][:1] == ["memory/2026-10-30.md"]
        # the notes' int32, typed with a space
        assert _paths(mem, "why did the int 32 counter overflow?")[0] == "memory/notes/counter.md"
        # a word and a number memory holds only apart stay two words
        profile = query_profile(mem.index, "standup 147")
        assert profile is not None and profile.terms == ["standup", "147"]
        profile = query_profile(mem.index, "hnm 147")
        assert profile is not None and profile.terms == ["hnm", "147", "hnm 147"]


def test_a_code_with_a_unicode_hyphen_in_the_question_or_the_note(tmp_path: Path) -> None:
    files = _ops_tickets()
    files["memory/pin.md"] = "1234 is the PIN of the ops phone; the ops team keeps it\n"
    files["memory/agent.md"] = "The agent wrote: OPS\u20111250 is the `relay\u2011workers` resize\n"
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # as loose words the note on the PIN, holding ops and 1234 apart, answered too
        assert _paths(mem, "what did OPS\u20111234 do?") == ["memory/ops-1234.md"]
        assert _paths(mem, "OPS\u22121234") == ["memory/ops-1234.md"]
        # a note a language model wrote with one is found by the code as people type it
        assert _paths(mem, "what is OPS-1250?")[0] == "memory/agent.md"
        assert _paths(mem, "what does `relay-workers` do?")[0] == "memory/agent.md"


def test_a_name_and_a_number_the_notes_write_apart_are_no_code(tmp_path: Path) -> None:
    files = {
        "memory/2026-10-12.md": "# 2026-10-12\n\n- 11:00 send the PG 16 rehearsal plan to Wang\n",
        "memory/2026-10-15.md": (
            "# 2026-10-15\n\n### 14:00 - BILL-438 first rehearsal\n"
            "PG 13 → 16 on staging: pg_upgrade took 41 min, two extensions failed to load\n"
        ),
        "memory/2026-11-16.md": "# 2026-11-16\n\n- 09:00 ledger-pg16 cutover done\n",
    }
    for day in range(1, 9):
        files[f"memory/2026-09-0{day}.md"] = f"# 2026-09-0{day}\n\n- 10:00 standup, staging quiet\n"
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        profile = query_profile(mem.index, "What went wrong in the first PG 16 rehearsal?")
        # the notes write PG 16 apart: words, as ever, and no code every result must name
        assert profile is not None and "pg 16" not in profile.terms
        hits = mem.search("What went wrong in the first PG 16 rehearsal?", mode="keyword")
        # PG 13 → 16 names no "PG 16": as a code it counted a quarter, after ledger-pg16
        assert [h.path for h in hits][:1] == ["memory/2026-10-15.md"]
        # one the notes write only joined is a code (BILL-438), as HNM-147 in the test above
        profile = query_profile(mem.index, "bill 438 rehearsal")
        assert profile is not None and "bill 438" in profile.terms


def test_a_quarter_or_half_asked_the_way_memory_does_not_write_it(tmp_path: Path) -> None:
    files = {
        "memory/2026-10-14.md": "# 2026-10-14\n\n### 14:00 - Q4 OKR 定稿\nKR1 对账差异率 < 0.05%\n",
        "memory/2026-07-10.md": "# 2026-07-10\n\n### 10:00 - Q3 OKR\nKR1 对账差异率 < 0.1%\n",
        "memory/2026-10-15.md": "# 2026-10-15\n\n### 16:00 - 1:1\n同意明年 H1 做 provider 抽象层。\n",
        "memory/2026-08-12.md": "# 2026-08-12\n\n### 15:30 - HC\nH2 批下来 1 个 HC。\n",
        "memory/notes/seasons.md": "# 四季\n\n四季度假村的房价，第四个周末去。\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # as words, 第四季度 is 第四, 四季, 季度: the seasons note held two of them, and no
        # note holds 季度 at all; read as the notes' Q4 it finds the Q4 note
        for asked in ("第四季度的 OKR 定了哪些 KR？", "fourth quarter OKR", "4분기 OKR"):
            assert _paths(mem, asked)[:1] == ["memory/2026-10-14.md"], asked
        assert _paths(mem, "三季度的 OKR")[:1] == ["memory/2026-07-10.md"]
        assert _paths(mem, "上半年要做什么架构改造？")[:1] == ["memory/2026-10-15.md"]
        assert _paths(mem, "what was planned for the first half of next year?")[:1] == [
            "memory/2026-10-15.md"
        ]
        assert _paths(mem, "下半年批了几个 HC？")[:1] == ["memory/2026-08-12.md"]
        # this quarter is no quarter: the Q3 note is no answer of August's question
        hits = mem.search("这个季度的 OKR", mode="keyword", today=date(2026, 8, 1))
        assert "memory/2026-07-10.md" not in [h.path for h in hits][:1]
        profile = query_profile(mem.index, "这个季度的 OKR", today=date(2026, 12, 5))
        assert profile is not None and "q4" not in profile.terms
        # a writing memory holds is searched as written
        profile = query_profile(mem.index, "Q4 OKR")
        assert profile is not None and profile.terms == ["q4", "okr"]
        profile = query_profile(mem.index, "第四季度 OKR")
        assert profile is not None and profile.terms == ["q4", "okr"]


def test_a_quarter_memory_writes_in_chinese_asked_as_a_label(tmp_path: Path) -> None:
    files = {
        "memory/2026-10-14.md": "# 2026-10-14\n\n### 14:00 - 规划\n四季度的目标：对账差异率 < 0.05%\n",
        "memory/2026-07-10.md": "# 2026-07-10\n\n### 10:00 - 规划\n三季度的目标：对账差异率 < 0.1%\n",
        "memory/notes/q4.md": "# misc\n\nQ4 of the survey asked about the office coffee.\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # memory writes Q3 nowhere: the question's Q3 is the notes' 三季度
        assert _paths(mem, "Q3 目标")[:1] == ["memory/2026-07-10.md"]
        assert _paths(mem, "third quarter goals")[:1] == ["memory/2026-07-10.md"]
        # memory writes Q4 (of a survey): the question's Q4 is kept as written
        profile = query_profile(mem.index, "Q4 目标")
        assert profile is not None and "q4" in profile.terms


def _config_notes() -> dict[str, str]:
    """Notes naming config keys and tables in camelCase and snake_case, among notes holding
    their words loosely."""
    files = {
        "memory/2026-11-09.md": "# 2026-11-09\n\n### 15:30 - HPA\n`autoscaling.maxReplicas: 32`\n",
        "memory/2026-11-04.md": "# 2026-11-04\n\n### 11:30 - fix\n`ack_wait=60s`（原来是默认的 30s）\n",
        "memory/projects/atlas.md": (
            "# atlas\n\n## Tables\n- `atlas_users_daily`: DAU per day\n"
            "- `events_raw_v2`: partitioned by `toDate(event_ts)`\n"
        ),
        "memory/notes/api.md": "# api\n\nEvery request carries the user id; `user_id` is a UUID.\n",
    }
    return files | _logs_of(
        "atlas",
        "atlas daily users report sent; ledger v2.{n}.0 released; max replicas of pods "
        "reviewed; the user waits for an ack",
        10,
    )


def _logs_of(title: str, entry: str, days: int) -> dict[str, str]:
    """``days`` daily logs from 2026-10-10 on, each one entry headed ``title``: ``entry`` with
    ``{n}`` the log's number (a version that differs), the words a name's notes hold loosely."""
    return {
        f"memory/2026-10-{n + 10}.md": f"# 2026-10-{n + 10}\n\n### 10:00 - {title}\n"
        + entry.format(n=n)
        + "\n"
        for n in range(days)
    }


def test_a_name_asked_in_another_case_or_as_words(tmp_path: Path) -> None:
    with Memory(write_notes(tmp_path, _config_notes()), overrides=KEYWORD_ONLY) as mem:
        # camelCase, one token no snake_case note holds, and the reverse
        for asked in ("max_replicas 调到多少了？", "maxReplicas"):
            assert _paths(mem, asked)[:1] == ["memory/2026-11-09.md"], asked
        for asked in ("ackWait 默认多少？", "AckWait"):
            assert _paths(mem, asked)[:1] == ["memory/2026-11-04.md"], asked
        # typed as words: among the logs holding atlas, daily, users, v2, raw loosely, the
        # name memory writes joined only
        for asked in ("atlas users daily 是哪张表？", "events raw v2 的分区", "eventsRawV2"):
            assert _paths(mem, asked)[:1] == ["memory/projects/atlas.md"], asked
        profile = query_profile(mem.index, "events raw v2 的分区")
        assert profile is not None and "events raw v2" in profile.terms
        # memory writes "the user id" too: words, not a name
        profile = query_profile(mem.index, "where does the user id come from?")
        assert profile is not None and "user id" not in profile.terms
        # "max replicas", which notes write maxReplicas: each word held through it
        profile = query_profile(mem.index, "what is max replicas set to?")
        assert profile is not None
        assert profile.bridges.get("max") == profile.bridges.get("replicas") == ["maxreplicas"]


def test_a_hyphenated_name_asked_as_words(tmp_path: Path) -> None:
    files = {
        "memory/2026-11-09.md": (
            "# 2026-11-09\n\n### 14:00 - rc\nv1.15.0-rc1 synced by Argo CD `relay-staging`.\n"
        ),
        "memory/notes/hoshimi.md": "# Hoshimi\n\nUrgent things go to `#tw-hoshimi` on Slack.\n",
        "memory/notes/metrics.md": (
            "# metrics\n\nThe error rate panel; `error-rate` is its alert's name.\n"
        ),
        "memory/notes/launch.md": "# launch\n\nThe go-live of the EU region is on Friday.\n",
    }
    files |= _logs_of(
        "relay on staging",
        "relay v1.1{n}.0 on staging; the staging relay is fine. TW asked about Hoshimi again, "
        "and about the error.",
        8,
    )
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # among the logs holding relay and staging loosely, the one naming relay-staging
        for asked in ("relay staging", "what do my notes say about relay staging?"):
            assert _paths(mem, asked)[:1] == ["memory/2026-11-09.md"], asked
        assert _paths(mem, "tw hoshimi 频道")[:1] == ["memory/notes/hoshimi.md"]
        profile = query_profile(mem.index, "what do my notes say about relay staging?")
        assert profile is not None and "relay staging" in profile.terms
        # memory writes "error rate" as prose too: words, not a name
        profile = query_profile(mem.index, "what is the error rate?")
        assert profile is not None and "error rate" not in profile.terms
        # a word memory hyphenates in prose only is no name either
        profile = query_profile(mem.index, "when does the EU region go live?")
        assert profile is not None and "go live" not in profile.terms
        assert _paths(mem, "when does the EU region go live?")[:1] == ["memory/notes/launch.md"]


def test_a_word_asked_in_full_that_notes_write_short(tmp_path: Path) -> None:
    files = {
        "memory/2026-11-14.md": "# 2026-11-14\n\n### 02:00 - upgrade\nprod DB 切到 PG 16，停机 9 min。\n",
        "memory/2026-09-02.md": "# 2026-09-02\n\n### 10:00 - relay\n3 msgs stuck in the DLQ, replayed.\n",
        "memory/notes/setup.md": "# setup\n\nLocal dev uses docker compose; nothing runs in k8s.\n",
        "memory/2026-08-01.md": "# 2026-08-01\n\n### 09:00 - standup\nAll quiet, no incidents.\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        asked = "How long was the production database down during the Postgres upgrade?"
        assert _paths(mem, asked)[:1] == ["memory/2026-11-14.md"]
        assert _paths(mem, "how many messages were in the dead-letter queue?")[:1] == [
            "memory/2026-09-02.md"
        ]
        assert _paths(mem, "does anything run on Kubernetes?")[:1] == ["memory/notes/setup.md"]
        # no form memory writes: nothing is made up
        assert _paths(mem, "what is the time to live of the cache?") == []


def test_the_words_of_software_work_across_chinese_and_english(tmp_path: Path) -> None:
    files = {
        "memory/2026-09-02.md": "# 2026-09-02\n\n### 15:00 - staging\nstaging 压测 1 小时，连接池峰值 41/64。\n",
        "memory/2026-10-12.md": (
            "# 2026-10-12\n\n### 10:00 - ledger\nStripe 连续 50 次 5xx 就熔断 30 秒。\n"
        ),
        "memory/2026-11-20.md": (
            "# 2026-11-20\n\n### 16:00 - relay\nThe circuit breaker opened after 20 "
            "timeouts; on-call was paged.\n"
        ),
        "memory/2026-08-01.md": "# 2026-08-01\n\n### 09:00 - standup\n没什么事，连续第三天没有 page。\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        assert _paths(mem, "What did the load test on staging show?")[:1] == [
            "memory/2026-09-02.md"
        ]
        assert _paths(mem, "how full did the connection pool get?")[:1] == ["memory/2026-09-02.md"]
        # the Chinese word for the English notes, and the reverse
        assert _paths(mem, "relay 的熔断器什么时候打开的？")[:1] == ["memory/2026-11-20.md"]
        assert _paths(mem, "What is the ledger's circuit breaker rule for Stripe?")[:1] == [
            "memory/2026-10-12.md"
        ]


def test_a_person_asked_by_the_role_memory_declares(tmp_path: Path) -> None:
    files = {
        "MEMORY.md": "# Memory\n\n## People\n- Manager: 周岚 (Zhou Lan). PM: Priya Nair.\n",
        "memory/2026-10-15.md": (
            "# 2026-10-15\n\n### 16:00 - 1:1 周岚\n她说我的周报太长，先写结论。\n"
        ),
        "memory/2026-10-16.md": "# 2026-10-16\n\n### 11:00 - roadmap\nPriya wants the export API by 12/1.\n",
        "memory/2026-10-17.md": "# 2026-10-17\n\n### 10:00 - standup\n周报模板改了，大家都用新的。\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        assert _paths(mem, "上司对我的周报有什么意见？")[:1] == ["memory/2026-10-15.md"]
        assert _paths(mem, "When does the PM want the export API?")[:1] == ["memory/2026-10-16.md"]
        # no note but the declaration writes 上司: the question is about 周岚
        profile = query_profile(mem.index, "上司对我的周报有什么意见？")
        assert profile is not None and "周岚" in profile.terms and "上司" not in profile.terms
        # a client's boss is not mine
        profile = query_profile(mem.index, "青橙老板对周报有什么意见？")
        assert profile is not None and "周岚" not in [*profile.terms, *str(profile.bridges)]
    # a memory writing the word in its notes keeps it, held through the name too
    files["memory/2026-10-18.md"] = "# 2026-10-18\n\n### 09:00 - 招聘\n上司让我先看简历。\n"
    (tmp_path / "memory/2026-10-18.md").write_text(files["memory/2026-10-18.md"], encoding="utf-8")
    with Memory(tmp_path, overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        profile = query_profile(mem.index, "上司对我的周报有什么意见？")
        assert profile is not None and "上司" in profile.terms
        assert profile.bridges["上司"] == ["周岚"]


def test_an_amount_asked_the_way_memory_does_not_write_it(tmp_path: Path) -> None:
    files = {
        "memory/2026-11-04.md": "# 2026-11-04\n\n### 10:20 - t-2210\n"
        "webhook 很慢，单条消息要处理 40s 以上。\n",
        "memory/2026-10-09.md": "# 2026-10-09\n\n### 15:00 - load test\n"
        "| inflight | p99 |\n|---|---|\n| 512 | 180ms |\n| 1024 | 640ms |\n",
        "memory/2026-08-11.md": "# 2026-08-11\n\n### 09:00 - deploy\n锁等了 13 分钟才释放，deploy 卡住。\n",
        # the question's words, each apart: as words, this note held them all
        "memory/2026-09-01.md": "# 2026-09-01\n\n### 11:00 - standup\n"
        "40 tickets in the queue; seconds count for the webhook retry. 13 deploy minutes "
        "saved, 640 users, p99 milliseconds.\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        for asked, note in [
            ("Which webhook took 40 seconds per message?", "memory/2026-11-04.md"),
            ("超时四十秒的是哪个 webhook？", "memory/2026-11-04.md"),
            ("p99 of 640 milliseconds", "memory/2026-10-09.md"),
            ("640 毫秒的 p99", "memory/2026-10-09.md"),
            ("deploy blocked for 13 minutes", "memory/2026-08-11.md"),
        ]:
            assert _paths(mem, asked)[:1] == [note], asked
        profile = query_profile(mem.index, "40 seconds webhook")
        assert profile is not None and profile.terms[0] == "40s"
        # a writing memory holds is searched as written, and no amount is converted
        profile = query_profile(mem.index, "webhook 40s")
        assert profile is not None and profile.terms == ["webhook", "40s"]
        profile = query_profile(mem.index, "p99 of 0.64 seconds")
        assert profile is not None and "640ms" not in profile.terms


def test_an_amount_memory_writes_several_ways_is_held_through_each(tmp_path: Path) -> None:
    files = {
        "memory/2026-10-02.md": "# 2026-10-02\n\n### 10:00 - ingest\nack_wait 调到 30 秒，重投少了。\n",
        "memory/2026-10-20.md": "# 2026-10-20\n\n### 16:00 - billing\nStripe webhook timeout is 30s now.\n",
        "memory/2026-11-02.md": "# 2026-11-02\n\n### 09:00 - standup\n"
        "30 minutes on the standup; seconds matter, said nobody.\n",
        "memory/2026-11-05.md": "# 2026-11-05\n\n### 11:00 - backfill\n回填了 16.8万 行 invoice_lines。\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        # asked as either note writes it, or as neither, both notes of 30 seconds come first
        for asked in ("30 seconds", "30s", "三十秒", "what was set to 30 sec?"):
            assert sorted(_paths(mem, asked)[:2]) == [
                "memory/2026-10-02.md",
                "memory/2026-10-20.md",
            ], asked
        profile = query_profile(mem.index, "timeout 30 seconds")
        assert profile is not None and profile.terms == ["timeout", "30s"]
        assert sorted(profile.bridges["30s"]) == ["30 秒"]
        # a count in thousands, of notes counting in 万
        assert _paths(mem, "how many invoice_lines rows, 168k?")[:1] == ["memory/2026-11-05.md"]
        assert _paths(mem, "backfilled 168,000 rows")[:1] == ["memory/2026-11-05.md"]


def test_a_word_of_software_work_memory_writes_in_another_language_is_a_term(
    tmp_path: Path,
) -> None:
    files = {
        "memory/2026-11-17.md": "# 2026-11-17\n\n### 15:00 - ledger\n"
        "Added a circuit breaker: after 50 consecutive 5xx from Stripe, set to pause calls for 30 s, as planned.\n",
        "memory/2026-09-07.md": "# 2026-09-07\n\n### 10:00 - relay\n"
        "Prod incident: relay stopped delivering for 40 minutes. Rollback took five minutes.\n",
        "memory/2026-09-08.md": "# 2026-09-08\n\n### 20:00 - 家里\n买的熔岩灯到了，一断电就灭。\n",
        "memory/2026-09-09.md": "# 2026-09-09\n\n### 09:30 - standup\n站会改成周一三五，排查安全问题的时间不变。\n",
    }
    with Memory(write_notes(tmp_path, files), overrides=KEYWORD_ONLY) as mem:
        mem.sync()
        # 熔断 is written nowhere, 熔 and 断 are (熔岩灯, 断电): read as a word of software work
        # held through the notes' circuit breaker, not as an edge between two words
        profile = query_profile(mem.index, "Stripe 的熔断怎么配的？")
        assert profile is not None and "熔断" in profile.terms
        assert profile.bridges["熔断"] == ["circuit breaker"]
        assert _paths(mem, "Stripe 的熔断怎么配的？")[:1] == ["memory/2026-11-17.md"]
        # in Japanese: 本番 and 障害 (prod, incident), 切り戻し (rollback)
        assert _paths(mem, "本番の障害はどのくらい続いた？")[:1] == ["memory/2026-09-07.md"]
        assert _paths(mem, "切り戻しにかかった時間は？")[:1] == ["memory/2026-09-07.md"]
        # a bigram only the general dictionary bridges stays an edge between two words when
        # memory lacks it (安排: "plan", "set" would hold it in any note)
        profile = query_profile(mem.index, "现在站会是怎么安排的？")
        assert profile is not None and "安排" not in profile.terms


def test_asking_whether_memory_holds_something_asks_about_it(tmp_path: Path) -> None:
    # 提到过, 还记得, 覚えてる, remember, mention are about memory itself: no note writes them
    # about its subject; held by one note about something else, they outweighed the subject
    ws = write_notes(
        tmp_path,
        {
            "memory/2026-08-06.md": "# 2026-08-06\n\n### 11:00 - broker\nKafka 太重了，选了 NATS。\n",
            "memory/2026-08-07.md": (
                "# 2026-08-07\n\n- 周会上我提到过还记得的那个需求。\n"
                "- I mentioned it; do you remember the recall list? 覚えてる人もいた。\n"
            ),
            **{
                f"memory/2026-09-{d:02d}.md": f"# 2026-09-{d:02d}\n\n- standup, review {d}\n"
                for d in range(1, 6)
            },
        },
    )
    with Memory(ws, overrides=KEYWORD_ONLY) as mem:
        for query in (
            "我之前有没有提到过 Kafka？",
            "你还记得 Kafka 吗？",
            "Kafka のこと覚えてる？",
            "Do you remember Kafka?",
            "Did I ever mention Kafka?",
        ):
            assert _paths(mem, query)[:1] == ["memory/2026-08-06.md"], query
