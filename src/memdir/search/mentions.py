"""The notes that name a day, besides the notes of that day.

A plan is written in the log of the day it is made, not of the day it is for: ``v1.13.3
下周二（9/15）上 prod`` stands in the log of 9/9, ``9/19（土）10:00 で予約`` in that of 9/8, and a
day still to come, or a weekend, has no log at all. So "9月15日有什么安排？" and "what's on
tomorrow?" are answered by the chunks whose own text names the day (:func:`naming_chunks`), as
:func:`memdir.dates.named_days` reads it from the chunk's own day: ``9/15``, ``9月15日``,
``Sep 15``, ``2026-09-15``, 明天, 下周二 or tomorrow in the log of a day before it, 昨天 or
昨日 in the log of a day after (``昨日の design review`` of a day with no log), and a weekend's
Saturday and Sunday in the log of a day around them (这个周末, ``周末再回她``, over the weekend).

They are found through the index, never by reading every chunk: the phrases a day is written
as (``9 15`` for 9/15 and 9.15, ``9 月 15`` for 9月15日, ``sep 15``) in the keyword index, and,
for a day no chunk is dated, the chunks dated up to :data:`DAYS_AROUND` days before or after
it for the words that name it from there (明天, 下周二, 昨天); then each candidate's text is
read to check that it names the day (``9 15`` may be the time 9:15).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

from memdir.dates import days_from, named_days, weekends_from
from memdir.index import KeywordRow
from memdir.index.backend import IndexBackend

__all__ = ["DAYS_AROUND", "MAX_DAYS", "MENTION_PROBE", "naming_chunks"]

MENTION_PROBE = 200
"""How many chunks holding a day's written phrases are read, and how many of those dated in
the days around it."""

DAYS_AROUND = 13
"""How far before or after a day a note may name it from its own day: 下周日 said on Monday is
13 days ahead, 上周一 said on Sunday 13 days back."""

MAX_DAYS = 7
"""The most days a question may name for their notes to be looked for (a week); a month's
thirty days would ask the index for some two hundred phrases."""

_MONTH_WORDS = (
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
    ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
    ("oct", "october"), ("nov", "november"), ("dec", "december"),
)  # fmt: skip


def _phrases(day: str) -> list[str]:
    """The keyword-index phrases a day (``YYYY-MM-DD`` or ``--MM-DD``) is written as:
    ``9 15`` (9/15, 9.15), ``9 月 15`` (9月15日), ``9 월 15`` (9월 15일), ``sep 15`` and
    ``15 sep``, and ``2026 09 15`` (an ISO date); ``09 15`` only for a day without a year, as it
    is the time 09:15 too."""
    month, number = int(day[-5:-3]), int(day[-2:])
    ds = {str(number), f"{number:02d}"}
    out = [f"{month} {d}" for d in ds] + [f"{month} {unit} {d}" for unit in "月월" for d in ds]
    if day.startswith("--"):
        out.append(day[2:].replace("-", " "))
    else:
        out.append(day.replace("-", " "))
    for word in _MONTH_WORDS[month - 1]:
        out += [f"{word} {d}" for d in ds] + [f"{d} {word}" for d in ds]
    return out


def _named_by(text: str, written: str | None, *, by_date: bool = True) -> set[str]:
    """The days ``text`` names one by one (no week's or month's), read from the day it was
    ``written`` (``YYYY-MM-DD``; ``None``: undated, so only what it names by date):
    ``YYYY-MM-DD``, a day without a year in ``written``'s year, or ``--MM-DD`` when undated,
    and the days of the weekends it names (这个周末, 周末再回她). Without ``by_date``, only
    those counted from ``written`` (明天, 下周二, 周末)."""
    today = date.fromisoformat(written) if written else None
    if not by_date:
        if today is None:
            return set()
        return {day for _, _, day in [*days_from(text, today), *weekends_from(text, today)]}
    found = set()
    for _, _, day in named_days(text, today, single=True):
        if day.startswith("--") and written:
            day = f"{written[:4]}-{day[2:]}"
        found.add(day)
    return found


def naming_chunks(
    index: IndexBackend,
    days: Sequence[str],
    *,
    sources: Sequence[str] | None = None,
    held: set[str] | None = None,
) -> list[KeywordRow]:
    """The chunks whose text (or heading path) names one of ``days`` (``YYYY-MM-DD``, or
    ``--MM-DD``: that day of any year), found as the module says; none for more than
    :data:`MAX_DAYS` days. A chunk dated the day may be among them, when it names it.
    ``held``: those of ``days`` some chunk is dated, when the caller has counted them
    (else they are read)."""
    wanted = list(dict.fromkeys(days))
    if not wanted or len(wanted) > MAX_DAYS:
        return []
    md = {d[-5:] for d in wanted}  # MM-DD
    src = list(sources) if sources else None
    if held is None:
        count, logged = index.dated(wanted, MENTION_PROBE, sources=src)
        held = {row.chunk.date or "" for row in logged} if count <= len(logged) else set(wanted)
    held_md = {h[-5:] for h in held if h}
    phrases: list[str] = []
    around: list[str] = []
    for d in wanted:
        phrases += _phrases(d)
        if d in held or (d.startswith("--") and d[2:] in held_md):
            continue
        # a day without notes of its own: the days around it, in any year when it has none
        # (a leap year's calendar: 29 February has neighbours)
        first = date.fromisoformat(d if not d.startswith("--") else f"2000{d[1:]}")
        for n in (n for n in range(-DAYS_AROUND, DAYS_AROUND + 1) if n):
            day = (first + timedelta(days=n)).isoformat()
            around.append(day if not d.startswith("--") else f"--{day[5:]}")
    rows = index.keyword(
        " OR ".join(f'"{p}"' for p in dict.fromkeys(phrases)), MENTION_PROBE, sources=src
    )
    written = len(rows)  # found by a phrase: read for dates too; the rest only for 明天 …
    if around:
        rows += index.dated(list(dict.fromkeys(around)), MENTION_PROBE, sources=src)[1]
    out: list[KeywordRow] = []
    seen: set[int] = set()
    for n, row in enumerate(rows):
        chunk = row.chunk
        if chunk.id in seen:
            continue
        seen.add(chunk.id)
        named = _named_by(f"{chunk.context}\n{chunk.text}", chunk.date, by_date=n < written)
        if any(_is_wanted(day, wanted, md) for day in named):
            out.append(row)
    return out


def _is_wanted(day: str, wanted: Sequence[str], md: set[str]) -> bool:
    """Whether ``day`` (as :func:`_named_by` gives it) is one of ``wanted``: the same day, or
    the same month and day where either has no year."""
    if day in wanted:
        return True
    if day[-5:] not in md:
        return False
    return day.startswith("--") or any(w.startswith("--") and w[-5:] == day[-5:] for w in wanted)
