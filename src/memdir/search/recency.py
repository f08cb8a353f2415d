"""Latest state first for a question about the present or the last time something happened;
the earliest first for the first time; the first mention first for a question asking what an
identifier is.

Memory keeps every version of a fact: the August entry that chose one broker and the October
one that finished the move to another, a ``MEMORY.md`` line and the ``Appended`` line that
supersedes it. Both match "which broker does relay use now?" about equally well, and the older
one often better (it says more). When a question asks about the present (:func:`asks_about_now`),
the results that match about as well as the best one are put in date order, newest first, with
the date of each chunk as the index records it (the entry's dated marker, heading or file name).
A result that names every identifier of the question is such a rival further down too
(:data:`NAMED_RIVAL`): the day's list that set ``ledger.retry.max_attempts`` to 3 is long and
scores under the short project note still giving 5. So does a question about the last time
something happened ("上次看牙是什么时候？"); one about the first time ("第一次…", "When did we
first …", :func:`asks_the_first_time`) puts those rivals oldest first (:func:`earliest_first`).

The other way round, "What was OPS-1324?" (:func:`asks_what_it_is`) is answered by the entry
that opened the ticket, not by the three later ones that mention it in passing ("OPS-1324 之后
dual-write 没再报错"), which are short and so score as well or better: among the close rivals,
dated results come oldest first (:func:`first_mention_first`). Measured on bench/agentmem, hybrid,
hit@1: .465 → .477 on the tuning half (one question), .457 → .478 on the test half (two); keyword
.380 → .402 on the test half; R@5 unchanged.

A question asking what is new about someone or something ("老王最近在忙什么？", "What's the
latest on atlas?", "ledger の進捗は？": :func:`asks_whats_new`) is answered by the newest entries
naming them: search leaves its asking words out of the terms and puts every result naming the
rest, down to :data:`NAMED_RIVAL` of the best score, in date order (``bench/agentmem/lately.py``:
42 of 72 first results not among the three newest days naming them → 4).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from memdir.dates import named_days
from memdir.text import identifier_spans

__all__ = [
    "CLOSE_MATCH",
    "asks_about_now",
    "asks_the_first_time",
    "asks_what_it_is",
    "asks_whats_new",
    "each_day_first",
    "earliest_first",
    "first_mention_first",
    "latest_first",
]

_SUBJECT = r"(?!(?:its|my|our|your|his|her|their|the|a|an)\b)\w+(?:\s+[A-Z]\w*)?"
"""Who did something, in "when did I last …", "when did Wang Tao first …": not "when did its
first payment …", where first says which payment."""
_NOW = re.compile(
    # the English words in ASCII mode: "now用的是哪个" (a Han character is a letter to \b)
    r"(?a:\b(?:now|currently|current|these\s+days|nowadays|at\s+the\s+moment|at\s+present|"
    r"right\s+now|as\s+of\s+today|today|latest|still|anymore|any\s+more|upcoming|"
    r"next(?!\s+(?:day|morning|afternoon|evening|night)\b))\b)"
    r"|现在|目前|最近|如今|当前|眼下|现阶段|这阵子|近来|最新|还在|仍然|下次|下一次|"
    r"今は|今の|今も|現在|最近|最新|いま|次の(?!日|朝|晩)|次回|"
    r"지금|현재|요즘|최근|"
    # the last time something happened: its latest entry answers, as the present's does
    r"(?a:\b(?:last\s+time|most\s+recent(?:ly)?|when\s+(?:was|were)\s+(?:the|my|our|his|her|"
    rf"their)\s+last|when\s+(?:did|had|have)\s+{_SUBJECT}\s+last)\b)"
    r"|上次|上一次|上回|最后一次|最後一次|前回|この前|最後に|지난번|마지막으로",
    re.IGNORECASE,
)
_FIRST_TIME = re.compile(
    r"(?a:\b(?:first\s+time|when\s+(?:was|were)\s+(?:the|my|our|his|her|their)\s+first|"
    rf"when\s+(?:did|had|have)\s+{_SUBJECT}\s+first|first\s+ever)\b)"
    r"|第一次|头一次|頭一次|首次|第一回|初めて|はじめて|最初に|最初の|처음",
    re.IGNORECASE,
)

_KIND_WORDS = (
    "ticket", "issue", "bug", "error", "code", "incident", "outage", "pr", "pull", "merge",
    "request", "mr", "change", "commit", "branch", "feature", "repo", "repository", "config",
    "setting", "key", "flag", "option", "variable", "env", "file", "script", "job", "task",
    "table", "migration", "alert", "metric", "dashboard", "version", "release", "build",
    "command", "tool", "service", "endpoint", "queue", "topic", "host", "node", "cluster",
    "namespace", "invoice", "order", "project", "epic", "doc", "document", "page", "channel",
)  # fmt: skip
_KIND = f"(?:(?:{'|'.join(_KIND_WORDS)})\\s+){{1,2}}"
"""What may stand before the identifier in "what was the ticket OPS-1234" or "what is the
change request CHG-2208": one or two words for a kind of thing, not any words ("what is the
status of OPS-1234" asks for its latest state, not what it is)."""

# A question asking what one identifier (written here as \x00) is, was, means or changed.
_WHAT_IT_IS = re.compile(
    r"(?:(?:so|and|remind\s+me)[,\s]+)?(?:"
    r"(?:what|which)(?:\s+(?:is|was|are|were)|'s)\s+(?:(?:the|an?)\s+)?(?:"
    + _KIND
    + r")?\x00(?:\s+(?:about|for|again))?"
    r"|what\s+(?:happened|went\s+wrong)\s+(?:in|with|to|on|during)\s+\x00"
    r"|what\s+(?:does|did)\s+\x00\s+(?:mean|do|change|fix|refer\s+to|stand\s+for|say)"
    r"|(?:tell\s+me\s+about|explain|describe)\s+(?:(?:the|an?)\s+)?(?:" + _KIND + r")?\x00"
    r"|\x00\s*(?:是|指的是|讲的是|说的是|修的是|改的是|做的是|改了|修了|做了|干了)\s*(?:什么|啥|哪个)"
    r"(?!时候|时间|地方)\s*(?:[\u4e00-\u9fff]{0,4}|[a-z]+)"
    r"|\x00\s*(?:是怎么回事|怎么回事|是干什么的|是干嘛的|是做什么的)"
    r"|什么是\s*\x00"
    r"|\x00\s*(?:は|って|とは)\s*(?:何|なん|なに|どんな|どういう)[\u3040-\u30ff\u4e00-\u9fff]{0,12}"
    r")[\s?？。.!！]*",
    re.IGNORECASE,
)

_RECENTLY = (
    # a Japanese question's particles around it too (佐藤さんは最近, ledger の最近の): left
    # alone, a particle would be a term
    r"(?:さん|くん|ちゃん)?(?:は|の|って|も)?(?:最近|近頃|このところ|ここのところ)(?:の|は)?|"
    r"(?a:\b(?:lately|recently|these\s+days|of\s+late|nowadays)\b)"
    r"|近来|近來|这阵子|這陣子|这段时间|這段時間|近期|요즘|최근"
)
_DOING = (
    # what someone has been doing, or how something is going: the frame of the question
    r"(?a:\b(?:(?:been\s+)?up\s+to|been\s+(?:doing|working\s+on|busy(?:\s+with)?)|"
    # "how is … going?", not "going through a tough time lately"
    r"(?:been\s+)?going\s+on|"
    r"(?:going|working\s+on|busy\s+with)(?=\s*(?:lately|recently|these\s+days)?\s*[?.!]*$))\b)"
    r"|在忙些什么|在忙什么|在忙啥|忙些什么|忙什么|忙啥|在做什么|在干什么|在干嘛|做了些什么|做了什么|"
    r"有什么动静|怎么样了|怎么样|如何了|"
    r"何をしていますか|何をしてる|何してる|どうしていますか|どうしてる|どうですか|の?様子は?"
)
_NEWS = (
    # asking for what is new about something, with no word of time
    r"(?a:\b(?:what(?:'s|\s+is)\s+new(?:\s+(?:with|on|in|about))?|"
    r"any\s+(?:news|updates?|progress)(?:\s+(?:on|about|from|for|with|of))?|"
    r"(?:the\s+)?latest\s+(?:news\s+)?(?:on|about|with|from|for)|"
    r"(?:what(?:'s|\s+is)\s+)?the\s+(?:current\s+)?status\s+(?:of|on)|"
    r"how(?:'s|\s+is|\s+are)\s+(?=.*\bgoing\s*[?.!]*$))\b)"
    r"|近况(?:如何|怎么样)?|近況|最新进展|最新情况|最新消息|最新動向|"
    # how far something has come: its newest entries say
    r"有什么新进展|有什么进展|有啥进展|进展如何|进展怎么样|进度如何|进度怎么样|"
    r"进展到哪一步了?|进展到哪了|进度到哪了|有什么新消息|"
    r"の?状況は|の?進捗は?|の?進み具合は?"
)
_WHATS_NEW = re.compile(f"{_RECENTLY}|{_DOING}|{_NEWS}", re.IGNORECASE)
_RECENT_OR_NEWS = re.compile(f"{_RECENTLY}|{_NEWS}", re.IGNORECASE)
_RECENTLY_RE = re.compile(_RECENTLY, re.IGNORECASE)

CLOSE_MATCH = 0.8
"""A result is a rival of the best one when its score is at least this share of the best's."""

MAX_RIVALS = 5
"""How many of the first results may be put in date order."""

NAMED_RIVAL = 0.35
"""Among the first :data:`MAX_RIVALS`, a result naming every identifier of the question is a
rival of the best down to this share of its score. bench/agentmem, tuning halves: hybrid hit@1
+1 question on the engineer's (0.5 the same; 0.35 also +1 in keyword search, 0.2 as 0.35),
keyword +1 on the designer's, none lost; test halves: hybrid and keyword +1 on the engineer's."""

T = TypeVar("T")


def asks_about_now(query: str) -> bool:
    """Whether ``query`` asks about the present state of something ("which X do we use now",
    "目前用什么", "今は何を使っていますか"), the next one planned ("When is the next design
    review?", "次のデザインレビューっていつ？": the newest plan says; on the designer's tuning
    half of bench/agentmem hit@1 +1 question in every mode, nothing else moved), or the last
    time something happened ("When did I last see the dentist?", "上次看牙是什么时候？",
    "前回の 1:1 はいつ？": its latest entry)."""
    return _NOW.search(query) is not None


def asks_the_first_time(query: str) -> bool:
    """Whether ``query`` asks about the first time something happened ("When was the first
    standup after the move?", "第一次看牙是什么时候？", "初めて上海に来たのはいつ？"): its
    earliest entry answers (:func:`earliest_first`)."""
    return _FIRST_TIME.search(query) is not None


def asks_what_it_is(query: str) -> str | None:
    """The identifier ``query`` asks about, when it asks what one identifier is and nothing
    more (``What was OPS-1324?``, ``ATL-305 修的是什么 bug？``, ``PR #482 改了什么？``,
    ``0x80AC とは何ですか``); else ``None``."""
    # a day written as notes do not write it is no identifier: "8/18 做了什么？" asks what
    # happened that day (an ISO day is written alike in the notes' headings, and stays one)
    days = [(a, b) for a, b, d in named_days(query, question=True) if d.startswith("--")]
    spans = [
        s for s in identifier_spans(query) if not any(x <= s[0] and s[1] <= y for x, y in days)
    ]
    if len(spans) != 1:
        return None
    (a, b) = spans[0]
    head, tail = query[:a].rstrip("`'\" "), query[b:].lstrip("`'\"")
    if _WHAT_IT_IS.fullmatch(f"{head.strip()} \x00{tail}".strip()) is None:
        return None
    return query[a:b]


def asks_whats_new(query: str) -> list[tuple[int, int]]:
    """The spans of ``query`` that ask what is new about someone or something ("What has He
    Jia been up to lately?", "老王最近在忙什么？", "relay 最近有什么进展？", "Any updates on
    atlas?", "佐藤さんは最近どうしていますか？"), to be left out of its terms; none when it
    does not ask that. It asks when it says "lately" (最近, 近頃) or asks for news ("what's
    new with", 近况): what the newest entries naming the rest of the question say answers it,
    not the entry naming it most densely (:func:`latest_first` with more rivals)."""
    if _RECENT_OR_NEWS.search(query) is None:
        return []
    spans = [m.span() for m in _WHATS_NEW.finditer(query) if m.end() > m.start()]
    if all(_RECENTLY_RE.fullmatch(query[a:b]) for a, b in spans):
        return []  # a time alone (最近的 p99 是多少？) asks about the present: latest_first
    return spans


def first_mention_first(
    ranked: Sequence[T],
    score: Callable[[T], float],
    where: Callable[[T], tuple[str, str, int] | None],
    *,
    close: float | None = None,
    rivals: int | None = None,
    in_passing: Callable[[T], bool] | None = None,
) -> list[T]:
    """``ranked`` (best first) with the close rivals of the best result that mention the
    identifier and are dated put oldest first, by ``where(x)`` = ``(date, path, start line)``
    (``None``: undated, or not naming it); the other rivals keep their places (a reference
    note, the table of error codes, is as good an answer as the first mention, and a note that
    does not name the identifier is no mention of it). The rivals are as in
    :func:`latest_first`. Then the undated rivals that ``in_passing`` says name it only in
    passing (no line of theirs is about it, :func:`opens_a_line`) go after the others: on
    bench/agentmem's engineer tuning half, "What was ATL-212 about?" was answered by a project
    note's config line ``… since ATL-212``; +1 question at hit@1 in every mode, none lost on
    any half. A dated log's mention is kept where its date puts it: "Opened OPS-1324." ends
    the sentence about the incident that opened it."""
    items = list(ranked)
    n = _rivals(items, score, close, rivals)
    if n < 2:
        return items
    head = items[:n]
    dated = [(i, key) for i, x in enumerate(head) if (key := where(x)) is not None]
    ordered = [head[i] for i, _ in sorted(dated, key=lambda t: t[1])]
    for (i, _), x in zip(dated, ordered, strict=True):
        head[i] = x
    if in_passing is not None:  # a stable sort: each group keeps its order
        head.sort(key=lambda x: where(x) is None and in_passing(x))
    return head + items[n:]


def _rivals(
    items: list[T], score: Callable[[T], float], close: float | None, rivals: int | None
) -> int:
    """How many of the first ``rivals`` items score at least ``close`` × the first one's
    (``None``: :data:`MAX_RIVALS`, :data:`CLOSE_MATCH`, as they are when called)."""
    close = CLOSE_MATCH if close is None else close
    rivals = MAX_RIVALS if rivals is None else rivals
    if len(items) < 2 or score(items[0]) <= 0:
        return 0
    best = score(items[0])
    n = 0
    while n < min(rivals, len(items)) and score(items[n]) >= close * best:
        n += 1
    return n


def latest_first(
    ranked: Sequence[T],
    score: Callable[[T], float],
    date: Callable[[T], str | None],
    *,
    close: float | None = None,
    rivals: int | None = None,
    named: Callable[[T], bool] | None = None,
) -> list[T]:
    """``ranked`` (best first) with the close rivals of the best result in date order.

    The rivals are the first ``rivals`` results scoring at least ``close`` × the best score,
    and those of the first ``rivals`` that ``named`` says name the question's identifiers and
    score at least :data:`NAMED_RIVAL` × the best; each rival takes a rival's place;
    among them dated ones come newest first, ahead of undated ones (a curated note with no
    date says nothing about when it was true), each group keeping its order otherwise.
    """
    items = list(ranked)
    rivals = MAX_RIVALS if rivals is None else rivals
    n = _rivals(items, score, close, rivals)
    at = list(range(n))
    if named is not None and items and score(items[0]) > 0:
        floor = NAMED_RIVAL * score(items[0])
        at += [
            i
            for i in range(n, min(rivals, len(items)))
            if named(items[i]) and score(items[i]) >= floor
        ]
    return _in_date_order(items, at, date, newest=True)


def earliest_first(
    ranked: Sequence[T],
    score: Callable[[T], float],
    date: Callable[[T], str | None],
    *,
    close: float | None = None,
    rivals: int | None = None,
) -> list[T]:
    """``ranked`` (best first) with the close rivals of the best result (as in
    :func:`latest_first`) in date order, oldest first, ahead of undated ones: the first time
    something happened is its earliest entry."""
    items = list(ranked)
    n = _rivals(items, score, close, rivals)
    return _in_date_order(items, list(range(n)), date, newest=False)


def each_day_first(
    ranked: Sequence[T],
    score: Callable[[T], float],
    date: Callable[[T], str | None],
    days: Sequence[str],
    *,
    note: Callable[[T], str] | None = None,
    close: float | None = None,
) -> list[T]:
    """``ranked`` (best first) with the best result of each of ``days`` (the days a question
    names: a range, a week, "the past 3 days") first, in their order, then, with ``note``
    (the file a result is of), the best of each other note of those days, where each scores
    at least ``close`` × the best score (``None``: :data:`CLOSE_MATCH`); the others after them
    in theirs. A busy day's six entries matched "过去三天做了什么？" as well as any other day's
    and filled the first results, and the five sections of a cutover's notes those of
    "10月28日做了什么？", ahead of the day's log: the question asks about each day, and about
    all it holds. One day only when the first result is of it: otherwise the day is what the
    question's answer is found by, not what it asks about."""
    items = list(ranked)
    if not days or len(items) < 2 or score(items[0]) <= 0:
        return items
    if len(days) == 1 and date(items[0]) not in days:
        return items  # the day is the question's context ("… closed at the Oct 13 meeting")
    close = CLOSE_MATCH if close is None else close
    floor = close * score(items[0])
    close_ones = [i for i, item in enumerate(items) if score(item) >= floor]
    first: list[int] = []
    wanted = set(days)
    for i in close_ones:
        if (day := date(items[i])) in wanted:
            first.append(i)
            wanted.discard(day)
    if note is not None:
        seen = {note(items[i]) for i in first}
        for i in close_ones:
            if i not in first and date(items[i]) in days and note(items[i]) not in seen:
                first.append(i)
                seen.add(note(items[i]))
    if not first:
        return items
    chosen = set(first)
    return [items[i] for i in first] + [x for i, x in enumerate(items) if i not in chosen]


def _in_date_order(
    items: list[T], at: list[int], date: Callable[[T], str | None], *, newest: bool
) -> list[T]:
    """``items`` with those at the places ``at`` put in date order among themselves, newest
    or oldest first, the undated last, each group keeping its order otherwise."""
    if len(at) < 2:
        return items
    dated = [(date(items[i]) or "", i, items[i]) for i in at]
    dated.sort(key=lambda t: (t[0] == "", _neg(t[0]) if newest else t[0], t[1]))
    for i, (_, _, x) in zip(at, dated, strict=True):
        items[i] = x
    return items


def _neg(day: str) -> tuple[int, ...]:
    """A sort key that puts later ISO dates first."""
    return tuple(-ord(c) for c in day)


_LINE_HEAD = re.compile(
    r"^[\s>#*+|-]*(?:\d+[.)]\s+)?(?:\[[ xX]\]\s*)?"
    r"(?:\d{1,2}:\d{2}(?:\s*[-–~]\s*\d{1,2}:\d{2})?\s*[-–—:]?\s*)?[`*_\[(]*"
)


def opens_a_line(text: str, identifier: str) -> bool:
    """Whether a line of ``text`` is about ``identifier``: it opens the line, after list and
    heading marks, a time and emphasis (``- 10:10 ATL-212: DAU …``, ``| ATL-212 | … |``,
    ``### OPS-1324 mitigated``), or a heading names it (``### 10:20 - 重试风暴（BILL-463）``),
    rather than standing in a sentence about something else
    (``… exposed the dedupe window problem (ATL-212)``)."""
    want = identifier.lower()
    for line in text.lower().splitlines():
        at = line.find(want)
        if at < 0:
            continue
        if line.lstrip().startswith("#"):  # a heading naming it heads an entry about it
            return True
        head = _LINE_HEAD.match(line)
        if head is not None and head.end() == at:
            return True
    return False
