"""The days a note or a question names (:mod:`memdir.dates`): heading dates in the forms people
write, and the days, weeks, months, ranges, holidays and parts of a day a question names, read
from today (issue #11)."""

from __future__ import annotations

from datetime import date

from memdir.dates import entry_hours, heading_date, named_days, part_of_day, weekends_from


def test_heading_dates_in_the_forms_people_write() -> None:
    # with a year: taken as written, in any form
    for title in ("2026/11/26 standup", "2026年11月26日 周会", "Launch Nov 26, 2026", "2026-11-26"):
        assert heading_date(title) == "2026-11-26", title
    # without one: the year nearest the reference day, else no date
    assert heading_date("チケット（11/26 時点）", "2026-12-03") == "2026-11-26"
    assert heading_date("チケット（11/26 時点）") is None
    assert heading_date("11月26日 会议", "2027-02-01") == "2026-11-26"
    assert heading_date("1/15 kickoff", "2026-12-20") == "2027-01-15"  # nearest, ahead
    assert heading_date("Standup Sept 9th", "2026-10-01") == "2026-09-09"
    assert heading_date("1:56 pm on 8 May, 2023") == "2023-05-08"
    assert heading_date("Review 26 Nov", "2026-12-01") == "2026-11-26"
    assert heading_date("Sprint 3 may slip", "2026-05-01") is None  # a verb, not a month
    assert heading_date("9/8（火）", "2026-09-01") == heading_date("9/8 Tue", "2026-09-01")
    # a bare M/D of one digit each needs a weekday: Phase 1/2 is no date
    # … or just before it
    assert heading_date("周五（9/4）上线", "2026-09-01") == "2026-09-04"
    assert heading_date("金曜 9/4 リリース", "2026-09-01") == heading_date("Fri 9/4", "2026-09-01")
    assert heading_date("Phase 1/2", "2026-05-01") is None
    assert heading_date("Step 1/5 montage", "2026-05-01") is None
    assert heading_date("see a/10/28 and v1.13/2", "2026-05-01") is None
    assert heading_date("2026年2月30日") is None  # no such day
    # Korean writes 년 / 월 / 일 where Chinese and Japanese write 年 / 月 / 日
    assert heading_date("2026년 11월 26일 회의") == "2026-11-26"
    assert heading_date("11월 26일 (목)", "2026-12-03") == "2026-11-26"
    assert heading_date("3개월 회고", "2026-12-03") is None  # three months, no month


def test_the_days_a_question_names_in_the_forms_people_write() -> None:
    """In a question, a date without a year names that day of any year (``--MM-DD``)."""

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question)]

    assert days("what did I do on Aug 3?") == ["--08-03"]
    assert days("8月3日做了什么？") == days("8月3号") == days("3 August") == ["--08-03"]
    assert days("9/19 的牙医") == ["--09-19"] and days("9/8（火）の予定") == ["--09-08"]
    assert days("2026/8/3 standup") == days("2026年8月3日") == ["2026-08-03"]
    assert days("Aug 3, 2026 and 2026-08-04") == ["2026-08-03", "2026-08-04"]
    assert days("2月29日") == ["--02-29"] and days("2月30日") == []
    assert days("8월 3일에 뭐 했어?") == days("8월3일") == ["--08-03"]
    assert days("2026년 8월 3일") == ["2026-08-03"] and days("8월 32일") == []
    # no day: a fraction, a verb, a version, a one-digit M/D without a weekday
    assert days("Phase 1/2 done; Sprint 3 may slip; v1.13.2 现在") == []
    assert days("8/3 那天") == []
    # … but a deadline beside it makes it one, as a weekday does
    assert days("房租 9/5 までに！") == days("截止 9/5") == days("due 9/5") == ["--09-05"]
    assert days("房租 9/5 前，记得") == days("until 9/5, nothing") == ["--09-05"]
    assert days("reduced by 3/4") == days("前端 1/2 完成") == days("3/4 前端") == []
    # … except in a question (question=True), where people write a day that way, unless a
    # word (not one that puts a day after it) or a number comes before it
    asked = [
        [day for _, _, day in named_days(q, question=True)]
        for q in ("8/3 那天", "what happened on 8/3?", "我8/3去了哪", "between 9/1 and 9/5")
    ]
    between = [f"--09-0{d}" for d in range(1, 6)]  # a range: each of its days
    assert asked == [["--08-03"], ["--08-03"], ["--08-03"], between]
    for no_day in (
        "Phase 1/2 是什么",
        "step 3/4 的结果",
        "v1/2",
        "第1/2期",
        "1/2% 的用户",
        "2/30 吃了啥",
    ):
        assert named_days(no_day, question=True) == [], no_day
    # a score or a count is no day, in a note or a question: quoted alone, after an article
    # or a verb of rating, before a word counting points; a day written next to it stays one
    for score in (
        "スタンプの「7/10」だけでは意味が伝わらない",
        '他说 "8/10"',
        "the demo got a 7/10 from Ken",
        "rated 9/10 by the panel",
        "给了 7/10 分的评价",
        "4/5 stars",
    ):
        assert named_days(score) == named_days(score, question=True) == [], score
    assert days("7/10 上线") == days("7/10 分享会") == ["--07-10"]
    assert days("「9/4（金）」") == ["--09-04"]
    assert [d for _, _, d in named_days("「4/5」是哪天的分数？", question=True)] == []
    question = "who did I meet on Aug 3?"
    ((start, end, _),) = named_days(question)
    assert question[start:end] == "Aug 3"


def test_the_days_a_question_names_from_today() -> None:
    """Yesterday, 昨天, last Friday: counted from the day the question is asked."""

    friday = date(2026, 12, 4)

    def days(question: str, today: date | None = friday) -> list[str]:
        return [day for _, _, day in named_days(question, today)]

    assert days("what did we decide yesterday?") == days("昨天的 standup") == ["2026-12-03"]
    assert days("昨日の打ち合わせ") == days("어제 회의") == ["2026-12-03"]
    assert days("the day before yesterday") == days("前天和谁吃饭") == ["2026-12-02"]
    assert days("today's standup") == days("今天做了什么") == ["2026-12-04"]
    # last Friday: the latest Friday before today; 上周五: the Friday of the week before
    assert days("what did I do last Friday?") == ["2026-11-27"]
    assert days("last Monday") == ["2026-11-30"]
    assert days("上周五的会议") == days("先週の金曜日") == ["2026-11-27"]
    assert days("上周一") == ["2026-11-23"]
    # every way Chinese names the week before names its weekday too, traditional script and
    # Korean included (上个星期五 named no day, and 지난주 금요일 the whole week)
    assert days("上个星期五") == days("上個星期五") == days("上礼拜五") == ["2026-11-27"]
    assert days("上禮拜五") == days("지난주 금요일에 뭐 했어?") == ["2026-11-27"]
    # so many days back, and the weekday of the week before last (上上周五 was last week's)
    assert days("what did I do 3 days ago?") == days("三天前") == days("3日前") == ["2026-12-01"]
    assert days("3일 전") == days("大前天") == ["2026-12-01"]
    assert days("two days ago") == days("이틀 전") == days("그저께") == ["2026-12-02"]
    assert days("上上周五") == days("先々週の金曜日") == days("지지난주 금요일") == ["2026-11-20"]
    assert days("12日前に提出") == []  # before the 12th: a count only up to ten days
    assert days("这个礼拜一") == days("이번 주 월요일") == days("這禮拜一") == ["2026-11-30"]
    # and ahead, as a replayed conversation (or a plan headed by its day) asks: tomorrow, the
    # day after, a weekday of next week, next week and next month
    assert days("what's the plan for tomorrow?") == days("明天有什么安排") == ["2026-12-05"]
    assert days("明日の予定") == days("내일 회의") == ["2026-12-05"]
    assert days("the day after tomorrow") == days("后天") == days("明後日") == ["2026-12-06"]
    assert days("下周五") == days("下个星期五") == days("来週の金曜日") == ["2026-12-11"]
    assert days("다음 주 금요일") == ["2026-12-11"] and days("明日香さんに連絡") == []
    following = [f"2026-12-{d:02d}" for d in range(7, 14)]
    assert days("what's on next week?") == days("下周有什么安排") == days("来週") == following
    january = [f"2027-01-{d:02d}" for d in range(1, 32)]
    assert days("next month") == days("下个月") == days("来月") == days("다음 달") == january
    assert days("next Friday") == []  # this week's Friday as often as the next one's
    # a week named from today: each of its days, Monday first, this week up to today
    last = [f"2026-11-{d}" for d in range(23, 30)]
    assert days("what did I do last week?") == days("上周做了什么") == last
    assert days("先週は何をした？") == days("지난주에 뭐 했어?") == days("上个星期") == last
    # so many weeks back: the calendar week holding that day; the week before last
    assert days("a week ago") == days("一周前") == days("1주 전") == last
    before_last = [f"2026-11-{d}" for d in range(16, 23)]
    assert days("two weeks ago") == days("两周前") == days("2週間前") == before_last
    assert days("the week before last") == days("上上周") == days("先々週") == before_last
    assert days("지지난주") == before_last
    this = ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"]
    assert days("this week's standups") == days("这周的 standup") == days("今週") == this
    # a weekend: the Saturday and Sunday of the calendar week named (上周末 named all of last
    # week, 这周末 this week up to today, and "last weekend" nothing)
    weekend = ["2026-11-28", "2026-11-29"]
    assert days("what did I do last weekend?") == days("上周末做了什么") == weekend
    assert days("上个周末") == days("先週末") == days("지난 주말에 뭐 했어?") == weekend
    coming = ["2026-12-05", "2026-12-06"]
    assert days("this weekend") == days("这个周末") == days("本周末") == days("今週末") == coming
    assert days("이번 주말") == days("這個週末") == coming
    after = ["2026-12-12", "2026-12-13"]
    assert days("下周末有什么安排") == days("来週末") == days("다음 주말") == after
    before = ["2026-11-21", "2026-11-22"]
    assert days("the weekend before last") == days("上上周末") == days("先々週末") == before
    assert days("지지난 주말") == before
    assert days("next weekend") == []  # this week's weekend as often as the next one's

    # a weekend a question names alone, by its tense: the latest, or the next; none for a habit
    def asked(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    assert asked("what did I do over the weekend?") == asked("周末做了什么？") == weekend
    assert asked("週末は何をした？") == weekend and asked("周末有什么安排？") == coming
    assert asked("周末一般几点起？") == asked("每个周末都做什么") == []
    # a weekday of this week: this Friday, 这周五, 今週の金曜日
    assert days("this Friday") == days("这周五的会") == days("今週の金曜日") == ["2026-12-04"]
    assert days("本周一") == days("this Monday") == ["2026-11-30"]
    ((start, end, _), *rest) = named_days("上周的会", friday)
    assert (start, end) == (0, 2) and {(a, b) for a, b, _ in rest} == {(0, 2)}
    # a month: each of its days, without a year when it is named without one
    september = [f"--09-{d:02d}" for d in range(1, 31)]
    assert days("what did I do in September?") == days("9月做了什么") == september
    assert days("9月份的 standup") == days("during Sept") == september
    assert days("9월에 뭐 했어?") == september and days("3개월") == []  # 3 months: no month
    assert (
        days("2026年9月")
        == days("2026년 9월")
        == days("in September 2026")
        == [d.replace("--", "2026-") for d in september]
    )
    assert len(days("in February")) == 29  # 29 February of a leap year too
    assert days("9月3日") == ["--09-03"] and days("Sept 3") == ["--09-03"]  # a day, no month
    assert days("May I ask?") == days("3个月") == [] and days("9 月 3 号") == ["--09-03"]
    assert (
        days("last month")
        == days("上个月")
        == days("先月")
        == days("a month ago")
        == [f"2026-11-{d:02d}" for d in range(1, 31)]
    )
    # so many months back, and the month before last (上上个月 was last month)
    october = [f"2026-10-{d:02d}" for d in range(1, 32)]
    assert days("two months ago") == days("两个月前") == days("2か月前") == october
    assert days("2개월 전") == days("두 달 전") == days("the month before last") == october
    assert days("上上个月") == days("先々月") == days("지지난달") == october
    assert days("3개월 전") == days("3个月前") == [f"2026-09-{d:02d}" for d in range(1, 31)]
    assert (
        days("this month")
        == days("这个月")
        == days("今月")
        == ["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04"]
    )
    # without a day to count from, only what a date names
    assert days("what did we decide yesterday?", None) == []
    assert days("what did I do last week?", None) == days("last month", None) == []
    assert days("yesterday and Aug 3") == ["2026-12-03", "--08-03"]


def test_a_weekday_a_question_names_alone_is_read_by_its_tense() -> None:
    """``what did I do on Tuesday?`` is the latest Tuesday, ``what's on Tuesday?`` the next; a
    weekday asked about with neither tense, or as a habit or a range, names no day."""

    friday = date(2026, 12, 4)

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    tuesday = ["2026-12-01"]
    assert days("what did I do on Tuesday?") == days("周二做了什么？") == tuesday
    assert days("火曜日に何をした？") == days("화요일에 뭐 했어?") == tuesday
    assert days("周二的会上说了什么？") == days("礼拜二吃了什么") == tuesday
    assert days("What happened on Friday?") == ["2026-11-27"]  # not today: the one before
    assert days("what's on Tuesday?") == days("周二有什么安排？") == ["2026-12-08"]
    assert days("周五要做什么") == days("金曜日の予定は？") == ["2026-12-04"]  # today counts
    # a habit, a change, a range, a count, a plural, or no tense: no day
    for habit in (
        "what time is the standup on Tuesday?",
        "周二的例会几点开始？",
        "on-call 交接为什么从周一改到周二了？",
        "每周二开会吗",
        "毎週火曜の定例は何時だった？",
        "매주 화요일에 뭐 했어?",
        "what did we do on Tuesdays?",
        "what did I do on Monday and Tuesday?",
        "周一到周五做了什么",
        "月曜日から金曜日まで何をした？",
        "一周二次的会议取消了吗",
    ):
        assert days(habit) == [], habit
    # a weekday with its week or its date is read as that
    assert days("上周二做了什么") == ["2026-11-24"] and days("周五（9/4）做了什么") == ["--09-04"]
    # only in a question: a note's "周二" names no day
    assert [d for _, _, d in named_days("周二做了什么", friday)] == []


def test_a_year_a_question_names_is_each_of_its_days() -> None:
    """Last year, 去年, 2年前, in 2025, 2025年: every day of that year; not this year, nor a
    year that is part of a code, a date or a fiscal year."""

    friday = date(2026, 12, 4)

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    last = days("what did I do last year?")
    assert last[0] == "2025-01-01" and last[-1] == "2025-12-31" and len(last) == 365
    assert days("去年做了什么") == days("昨年") == days("작년에") == days("지난해") == last
    assert days("in 2025") == days("2025年做了什么") == days("1年前") == last
    before = days("the year before last")
    assert len(before) == 366 and before[0] == "2024-01-01"  # a leap year
    assert days("two years ago") == days("两年前") == days("前年") == days("2년 전") == before
    assert days("一昨年") == before
    september = [f"2025-09-{d:02d}" for d in range(1, 31)]
    assert days("2025年9月") == september  # a month of that year, not the year
    for other in ("今年的目标", "this year", "OPS-2025", "in 2025-09", "2024年度", "前年比"):
        assert days(other) == [], other
    # counted back only from a known today; a year named needs none
    assert [d for _, _, d in named_days("去年", None, question=True)] == []
    assert len(named_days("in 2025", None, question=True)) == 365


def test_english_date_words_written_straight_before_chinese() -> None:
    """Code-mixed questions put no space between an English date word and the Chinese after
    it; a Han character is a word character to ``\\b``, which took "yesterday的" for one word."""

    friday = date(2026, 12, 4)

    def days(question: str) -> list[str]:
        return [day for _, _, day in named_days(question, friday, question=True)]

    assert days("yesterday的standup说了什么") == days("yesterday 的 standup") == ["2026-12-03"]
    assert days("3 days ago的事") == ["2026-12-01"] and days("last Friday的会") == ["2026-11-27"]
    assert days("Sep 3的会") == ["--09-03"] and days("on Tuesday做了什么") == ["2026-12-01"]
    assert days("last week的会议") == days("上周的会议")
    assert days("last weekend去哪了") == ["2026-11-28", "2026-11-29"]
    assert len(days("in September做了什么")) == 30 and len(days("in 2025做了什么")) == 365
    assert days("yesterday2") == []  # still a word's edge: a letter or digit goes on
    # in a note's heading too
    assert heading_date("Sep 3的会议", "2026-09-10") == "2026-09-03"


def test_the_weekends_a_note_names() -> None:
    def days(text: str, written: date) -> list[str]:
        return sorted({day for _, _, day in weekends_from(text, written)})

    thursday, monday, saturday = date(2026, 11, 12), date(2026, 11, 16), date(2026, 11, 14)
    this, last, after = (
        ["2026-11-14", "2026-11-15"],
        ["2026-11-07", "2026-11-08"],
        ["2026-11-21", "2026-11-22"],
    )
    # named from the note's day, as a question's are from today
    assert days("这个周末写初稿", thursday) == days("this weekend: hiking", thursday) == this
    assert days("上周末去了杭州", thursday) == days("先週末", thursday) == last
    assert days("下周末搬家", thursday) == days("来週末", thursday) == after
    # next weekend: the coming one or the one after, both (a question reads it as neither)
    assert days("next weekend", thursday) == [*this, *after]
    # alone, on a weekday: the one before when its clause says what was, the one after when
    # it says what will be, both when it says neither
    assert (
        days("周末 DAG fail 了 5 次", monday) == days("over the weekend it failed", monday) == this
    )
    assert days("剩下 3 个 job 周末已经迁完，19/19", thursday) == last
    assert days("周末再回她", thursday) == days("週末は美咲が上海に来る", thursday) == this
    assert days("we'll hike on the weekend", thursday) == this
    assert days("周末还是我 on-call", thursday) == [*last, *this]
    # a clause ends at a Chinese comma too; 完成 (to finish) says nothing of the past
    assert days("上周五发布了，周末再回她", thursday) == this
    assert days("周末完成初稿", thursday) == [*last, *this]
    assert days("주말에 뭐 해?", saturday) == days("周末", saturday) == this
    # a habit is no weekend: every weekend, 每个周末, 毎週末; nor are weekends
    for habit in (
        "every weekend",
        "每个周末都去",
        "毎週末ヨガ",
        "weekends",
        "매주 주말",
        "某个周末",
    ):
        assert days(habit, thursday) == [], habit
    # a note's days (named_days(single=True)) hold them; a question's read them as before
    assert [d for _, _, d in named_days("周末再回她", thursday, single=True)] == this
    assert named_days("周末再回她", thursday) == []


def test_the_days_of_a_range_a_question_names() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    first_five = [f"--09-0{d}" for d in range(1, 6)]
    # two days joined by a range's word: each day from the first to the last
    assert (
        days("9/1 到 9/5 做了什么？")
        == days("what did I do between Sep 1 and Sep 5?")
        == first_five
    )
    assert days("9月1日至9月5日的 standup") == days("from Sep 1 to Sep 5") == first_five
    assert days("9/1〜9/5 の作業は？") == days("9월 1일부터 9월 5일까지 뭐 했어?") == first_five
    # the last day of the same month, or a weekday of the same week
    assert days("9月1日到5日") == days("Sep 1–5") == first_five
    assert days("上周一到周三做了什么") == ["2026-11-23", "2026-11-24", "2026-11-25"]
    assert days("12/30 到 1/2") == ["--01-01", "--01-02", "--12-30", "--12-31"]
    # into the next year up to a 29 February: over a month, no range (it raised ValueError)
    assert days("12/30 到 2/29") == days("12月30日到2月29日") == ["--02-29", "--12-30"]
    # two days that make no range stay two days; a span over a month is no range
    assert days("9/1 和 9/5 哪天开的会") == days("Sep 1 and Sep 5") == ["--09-01", "--09-05"]
    assert days("1/1 到 3/1") == ["--01-01", "--03-01"] and days("9/1 到 10点") == ["--09-01"]
    # days counted back from today, today with them
    three = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    assert days("过去三天做了什么") == days("the last 3 days") == days("ここ3日") == three
    assert days("지난 3일") == days("past few days") == days("最近几天") == three
    assert days("最近一周") == days("the past week") == [f"2026-11-{d}" for d in range(23, 31)]
    assert days("这几天做了什么") == days("ここ数日は何をした？") == three
    assert days("9月3日这一天") == ["--09-03"]  # that very day
    assert days("last week") == [f"2026-11-{d}" for d in range(23, 30)]  # the calendar week
    # from a day named as a start up to today
    since = ["2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"]
    assert days("since last Friday") == days("since 2026-11-27") == since
    for text in (
        "what has happened since Nov 27?",
        "自11月27日以来",
        "11/27 以降の作業",
        "从11月27日开始",
        "11월 27일 이후",
        "11月27日起",
    ):
        assert [d for d in days(text) if not d.startswith("--")] == since, text
    assert days("since Dec 20") == ["--12-20"]  # December 2025: more than a month back
    # since a weekday: the latest before today (on Monday the 30th, the 24th)
    assert days("what changed since Tuesday?") == [f"2026-11-{d}" for d in range(24, 31)]
    assert days("周一以来做了什么") == [f"2026-11-{d}" for d in range(23, 31)]
    assert days("what happened Tuesday?") == []  # a weekday alone needs "on", or "since"
    # the week of a day: its calendar week, Monday to Sunday
    week_of_sep_9 = [f"2026-09-{d:02d}" for d in range(7, 14)]
    for text in (
        "the week of Sep 9",
        "9月9日那周做了什么？",
        "9/9 の週は何をした？",
        "9월 9일 주에",
    ):
        assert [d for d in days(text) if not d.startswith("--")] == week_of_sep_9, text
    assert days("9/9 주말") == days("9月9日周报") == ["--09-09"]
    assert days("11月27日起床") == ["--11-27"]  # got up, not since
    # a note's days: what it names one by one, no range
    assert [d for _, _, d in named_days("9/10 到 9/15 出差", monday, single=True)] == [
        "--09-10",
        "--09-15",
    ]


def test_the_beginning_middle_and_end_of_a_month() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    early = [f"--09-{d:02d}" for d in range(1, 11)]
    mid = [f"--09-{d}" for d in range(11, 21)]
    late = [f"--09-{d}" for d in range(21, 31)]
    assert days("9月初做了什么") == days("early September") == days("9月上旬") == early
    assert days("9월 초에 뭐 했어?") == days("the beginning of September") == early
    assert days("9월 초순") == early
    assert days("9月中旬") == days("mid-September") == days("in mid September") == mid
    assert days("9月底的 standup") == days("end of September") == days("late Sep") == late
    assert days("9月末の予定") == days("9月下旬") == days("9월 말에") == late
    end_of_october = [f"2026-10-{d}" for d in range(21, 32)]
    assert days("上个月底") == days("the end of last month") == end_of_october
    # the whole month without such a word: 9月中に is "during September", 9月初二 a lunar day
    whole = [f"--09-{d:02d}" for d in range(1, 31)]
    assert days("9月做了什么") == days("9月中に") == days("9月初二") == whole
    # the word is part of the span, so it is no term of the question
    ((start, end, _), *_) = named_days("9月底的 standup", monday, question=True)
    assert (start, end) == (0, 3)


def test_a_day_of_the_month_named_as_people_say_it() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    # the ordinal of a month, and Chinese numerals: that day, not the whole month or nothing
    assert days("what did I do on the 3rd of September?") == days("九月三日做了什么") == ["--09-03"]
    assert days("十一月二十号的会") == ["--11-20"] and days("九月三十一日") == []
    # a day of a month named from today
    assert days("上个月3号做了什么") == days("the 3rd of last month") == ["2026-10-03"]
    assert days("지난달 3일에 뭐 했어?") == days("先月3日は何をした？") == ["2026-10-03"]
    assert days("这个月的十五号") == days("this month on the 15th") == ["2026-11-15"]
    assert days("上个月31号") == ["2026-10-31"] and days("上个月的工作") == [
        f"2026-10-{d:02d}" for d in range(1, 32)
    ]
    # a day of the month alone: the latest such day up to today
    assert days("3号做了什么？") == days("what did I do on the 3rd?") == ["2026-11-03"]
    assert days("31号那天") == ["2026-10-31"] and days("十五号和老王吃饭") == ["2026-11-15"]
    # … not a line of the metro, a floor, a building, or a count
    for no_day in ("3号线坏了", "on the 3rd floor", "3号楼的会议室", "the 3rd time", "第3号方案"):
        assert days(no_day) == [], no_day
    # the day's words are one span: no term of the question
    ((start, end, _),) = named_days("上个月3号做了什么", monday, question=True)
    assert (start, end) == (0, 5)


def test_a_week_a_half_or_a_day_of_a_month() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    def sep(first: int, last: int) -> list[str]:
        return [f"--09-{d:02d}" for d in range(first, last + 1)]

    assert days("the first week of September") == days("9月第一周做了什么") == sep(1, 7)
    assert days("9月の第2週") == days("9월 둘째 주") == days("9月的第二个星期") == sep(8, 14)
    assert days("9月最后一周") == days("the last week of September") == sep(24, 30)
    assert days("9月の最終週") == days("9월 마지막 주") == sep(24, 30)
    assert days("9月上半月") == days("the first half of September") == sep(1, 15)
    assert days("9月の後半") == days("the second half of September") == sep(16, 30)
    assert (
        days("the last day of August") == days("8月最后一天") == days("8月の最終日") == ["--08-31"]
    )
    assert days("9月第一天") == days("9월 첫날") == ["--09-01"]
    # the nth or last of a weekday: the month as the latest such up to today
    assert days("the last Friday of October") == days("10月最后一个周五") == ["2026-10-30"]
    assert days("last Monday of October") == days("10月の最終月曜日") == ["2026-10-26"]
    assert days("9月第一个周一") == days("9月の第1月曜日") == ["2026-09-07"]
    # … of a month named from today too; and "last week" / "last Monday" there are no
    # week or day before this one
    assert (
        days("the last week of last month")
        == days("上个月最后一周")
        == [f"2026-10-{d}" for d in range(25, 32)]
    )
    assert days("what did I do last week?") == [f"2026-11-{d}" for d in range(23, 30)]
    assert days("last Monday") == ["2026-11-23"]


def test_a_holiday_a_question_names_by_its_tense() -> None:
    monday = date(2026, 11, 30)

    def days(text: str, today: date = monday) -> list[str]:
        return sorted({d for _, _, d in named_days(text, today, question=True)})

    national_day = [f"2026-10-0{d}" for d in range(1, 8)]
    assert days("国庆去哪玩了？") == days("十一假期去了哪") == national_day
    assert days("What did I do over the National Day holiday?") == national_day
    assert days("国庆有什么安排？", date(2026, 9, 20)) == national_day  # the next one
    assert days("万圣节那天做了什么") == days("ハロウィンに何をした？") == ["2026-10-31"]
    assert days("双十一买了什么") == ["2026-11-11"]
    assert days("圣诞节有什么安排？") == ["2026-12-24", "2026-12-25", "2026-12-26"]
    assert days("what did I do over Christmas?") == ["2025-12-24", "2025-12-25", "2025-12-26"]
    assert days("元旦有什么计划") == ["2027-01-01"] and days("元旦做了什么") == ["2026-01-01"]
    # a habit names no day; nor does a street, or November
    assert days("国庆一般去哪？") == [] and days("五一路那家店做了什么") == []
    assert days("Which train does Mo take for the National Day holiday?") == []
    # the lunar ones, from the table of their days
    assert (
        days("中秋节做了什么？")
        == days("추석에 뭐 했어?")
        == [
            "2026-09-24",
            "2026-09-25",
            "2026-09-26",
        ]
    )
    assert days("春节回家了吗？") == [f"2026-02-{d}" for d in range(16, 24)]  # 除夕 to 初六
    assert days("春节有什么安排？")[0] == "2027-02-05" and days("除夕夜吃了什么？") == [
        "2026-02-16"
    ]
    assert days("端午节有什么计划", date(2026, 5, 1)) == ["2026-06-18", "2026-06-19", "2026-06-20"]
    assert days("春节做了什么", date(2036, 6, 1)) == []  # a year the table does not hold
    assert days("中秋一般怎么过") == [] and days("What do we usually do at Christmas?") == []
    # nor a weekend, weekday or day of the month asked about as a rule, though 过 reads as past
    assert days("周末一般怎么过") == [] and days("周二一般几点开会了") == []
    assert days("15号一般做什么") == [] and days("周末怎么过的？") == ["2026-11-28", "2026-11-29"]
    # months in Chinese numerals
    assert days("十一月做了什么") == [f"--11-{d:02d}" for d in range(1, 31)]
    assert days("九月份的工作") == [f"--09-{d:02d}" for d in range(1, 31)]
    assert days("一个月做了什么") == []


def test_days_a_question_names_loosely() -> None:
    monday = date(2026, 11, 30)

    def days(text: str) -> list[str]:
        return sorted({d for _, _, d in named_days(text, monday, question=True)})

    couple = ["2026-11-27", "2026-11-28", "2026-11-29"]
    few = [f"2026-11-{d}" for d in range(23, 30)]
    assert days("前两天做了什么") == days("a couple of days ago") == days("我前两天买的") == couple
    assert days("两三天前做了什么？") == couple
    assert days("前几天做了什么") == days("几天前做了什么") == days("the other day") == few
    assert days("a few days ago") == days("数日前に何をした？") == days("며칠 전에 뭐 했어?") == few
    # 上线前两天: the two days before the launch, not before today; 三十几天前 no few days
    assert days("上线前两天做了什么") == [] and days("三十几天前") == []
    # a year back: that day, or a week either side of it; 去年 alone is the year
    assert days("去年的今天") == days("a year ago today") == ["2025-11-30"]
    year_ago = [f"2025-11-{d}" for d in range(23, 31)] + [f"2025-12-0{d}" for d in range(1, 8)]
    assert days("this time last year") == days("去年这个时候在忙什么") == year_ago
    assert len(days("去年做了什么")) == 365
    # the past weekend is the last one
    assert days("what did I do over the past weekend?") == ["2026-11-28", "2026-11-29"]
    assert days("this past weekend") == days("last weekend")


def test_days_of_a_month_at_its_edges() -> None:
    """Found in review: each was a crash, a wrong day, or no day where one was named."""

    def days(text: str, today: date) -> list[str]:
        return sorted({d for _, _, d in named_days(text, today, question=True)})

    # no 29 February in 2026: the weekdays of February raised ValueError
    assert days("the last Friday of February?", date(2026, 3, 30)) == ["2026-02-27"]
    assert days("二月第四个周日做了什么", date(2026, 3, 30)) == ["2026-02-22"]
    # "last week" / "last Friday" before "in the standup" or "in Tokyo" are still days
    assert days("What did I do last Tuesday in the morning?", date(2026, 11, 10)) == ["2026-11-03"]
    assert len(days("What did we decide last week in the standup?", date(2026, 11, 10))) == 7
    assert named_days("Met Alice last Friday in Tokyo.", date(2026, 11, 30), single=True) == [
        (10, 21, "2026-11-27")
    ]
    # this month's end is its end, though "this month" alone stops at today
    jan10 = date(2026, 1, 10)
    assert days("这个月最后一天有什么安排？", jan10) == ["2026-01-31"]
    assert days("the second half of this month?", jan10)[0] == "2026-01-16"
    assert days("这个月做了什么", jan10)[-1] == "2026-01-10"
    # the second day is the second, not the last
    assert days("the second day of September?", date(2026, 11, 30)) == ["--09-02"]
    # a Japanese last Friday of a month is no Friday alone; a Korean week takes its particle
    assert days("10月の最終金曜日に何をした？", date(2026, 11, 30)) == ["2026-10-30"]
    assert days("9월 첫째 주에 뭐 했어?", date(2026, 11, 30)) == [f"--09-0{d}" for d in range(1, 8)]
    # a bare day by tense, in the nearest month that has it
    assert days("15号有什么计划？", date(2026, 11, 10)) == ["2026-11-15"]
    assert days("31号做了什么？", date(2026, 10, 15)) == ["2026-08-31"]
    # a range in a month named from today stays the month; の, and no 三日游 or 3일간
    assert len(days("上个月3号到5号做了什么？", date(2026, 11, 10))) == 31
    assert days("先月の3日に何をした？", date(2026, 11, 10)) == ["2026-10-03"]
    assert len(days("上个月三日游去了哪里？", date(2026, 11, 30))) == 31
    # titles, idioms and places are no months or holidays
    for no_day in ("五月天的演唱会去过吗？", "十月怀胎的书看过吗？", "五一广场去过吗？",
                   "白色情人节送了什么？", "圣诞老人的衣服买了吗？", "Christmas tree was bought?",
                   "Did I say I may day-trip to Kyoto?"):  # fmt: skip
        assert days(no_day, date(2026, 11, 30)) == [], no_day


def test_the_part_of_a_day_a_question_names() -> None:
    def hours(text: str) -> tuple[int, int] | None:
        part = part_of_day(text)
        return part.hours if part else None

    morning, afternoon, evening = (5, 12), (12, 18), (17, 24)
    assert hours("9月3日上午做了什么") == hours("9/3 の朝は何をした") == morning
    assert hours("the morning of Sep 3") == hours("9월 3일 오전") == morning
    assert hours("昨天下午开会说了什么") == hours("yesterday afternoon") == afternoon
    assert hours("9/3 の午後") == afternoon and hours("中午吃了什么") == (11, 14)
    assert hours("昨晚做了什么") == hours("what did I do last night?") == evening
    assert hours("10 月 27 号晚上") == hours("어젯밤에") == hours("9/3 の夜は") == evening
    # none, or two: no part of the day
    for text in ("9月3日做了什么", "早上和晚上都", "9月3日去朝阳区", "how many nights on Sep 22"):
        assert part_of_day(text) is None, text
    # an hour by the clock: that hour to the next; a working day's 3点 is at 15:00
    assert hours("what did I do at 3pm on Sep 3?") == hours("9月3日下午3点在做什么") == (15, 16)
    assert hours("9/3 の午後3時") == hours("9월 3일 오후 3시") == hours("3点的会") == (15, 16)
    assert hours("at 14:30 on Sep 3") == hours("下午两点半") == hours("at 2:30") == (14, 15)
    assert hours("10:30 a.m. on Sep 3") == (10, 11)
    assert hours("十点半的会") == (10, 11) and hours("9点开会") == (9, 10)
    # a count is no hour: 三点意见, 我有3点建议, 第3点
    for text in ("他提了三点意见", "我有3点建议", "第3点"):
        assert part_of_day(text) is None, text
    # last night, 昨晚, 今早 … are days too
    monday = date(2026, 11, 30)
    for text, day in (
        ("昨晚做了什么", "2026-11-29"),
        ("last night", "2026-11-29"),
        ("今早的 standup", "2026-11-30"),
        ("this afternoon", "2026-11-30"),
    ):
        assert [d for _, _, d in named_days(text, monday, question=True)] == [day], text
    # a timed entry's hour: a heading or a list item opening with its time
    text = "### 14:30 - deploy\nat 10:00 we met\n- 09:30 standup\n- [x] 18:05 done\n| 10:00 |"
    assert entry_hours(text) == [14, 9, 18]
