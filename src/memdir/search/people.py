"""Questions asking who someone is, and the notes about them rather than those naming them.

"何佳是谁？" is answered by the row of the team table that opens with 何佳, or by the people
note headed with her name, not by the dozen daily entries that name her in passing ("下午找何佳
review"): those are short, hold the name as often, and to an embedder a markdown table is
far from any question, so they outranked the row. :func:`asks_who_it_is` finds the name such a
question asks about; :func:`is_about` tells a chunk about the person from one naming them.
"""

from __future__ import annotations

import re
import unicodedata

from memdir.text import identifier_spans

__all__ = ["asks_who_it_is", "is_about"]

_NAME = (
    r"(?P<name>(?:[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*){0,3})"
    r"|[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{2,6}?"
    r"|[\u3005\u3400-\u4dbf\u4e00-\u9fff]{2,4}?\s[\u3005\u3400-\u4dbf\u4e00-\u9fff]{1,3}?)"
)

_HONORIFICS = "さん|様|さま|くん|君|ちゃん|先生|老师|老師|씨|님"
_HON = f"(?:{_HONORIFICS})?"
_END = r"[\s?？。.!！呀啊呢]*"
_WHO = [
    re.compile(p + _END)
    for p in (
        # English: "Who is He Jia?", "who's Priya", "what does Wang Tao do?", "Priya's role"
        r"(?:(?i:so|and|remind\s+me)[,\s]+)?(?i:who(?:'s|\s+is|\s+was))\s+"
        + _NAME
        + r"(?i:\s+again|,?\s+and\s+what\s+(?:does|did)\s+(?:he|she|they)\s+do)?",
        r"(?i:what\s+(?:does|did))\s+" + _NAME + r"\s+(?i:do(?:\s+(?:again|here|now))?)",
        r"(?i:what(?:'s|\s+is|\s+was))\s+" + _NAME + r"(?:'s|’s)\s+(?i:role|job|title|position)",
        # what they are responsible for: "What is Wang Tao responsible for?", "What does
        # He Jia own?"
        r"(?i:what(?:'s|\s+is|\s+was|\s+are|\s+were))\s+"
        + _NAME
        + r"\s+(?i:responsible\s+for|in\s+charge\s+of)",
        r"(?i:what\s+(?:does|did))\s+"
        + _NAME
        + r"\s+(?i:own|handle|look\s+after|take\s+care\s+of)",
        # Chinese: 何佳是谁？ 孙悦是做什么的？ 老王负责什么？ 谁是何佳
        _NAME + _HON + r"\s*(?:是谁|是誰|是哪位|是什么人|是做什么的|是干什么的|是干嘛的|做什么的|"
        r"负责什么|負責什麼|是做什么工作的)",
        r"谁是\s*" + _NAME,
        # Japanese: 佐々木さんって誰？ 佐々木さんはどんな人？ 佐々木さんは何をしている人？
        _NAME + _HON + r"\s*(?:って|は|とは)\s*(?:誰|だれ|どなた|どんな人|何の人|何をしている人|"
        r"何をしてる人|なにをしている人)(?:だっけ|ですか|でしたっけ)?",
        # 佐々木さんの担当は？ 佐々木さんは何を担当していますか？
        _NAME
        + _HON
        + r"\s*(?:の担当(?:は|って)?(?:何|なに)?(?:ですか)?|は\s*何を担当(?:していますか|してる)?)",
        # Korean: 김민수는 누구야?
        _NAME + _HON + r"\s*(?:은|는|이|가)?\s*누구(?:야|예요|에요|인가요|지)?",
    )
]
_HONORIFIC = re.compile(rf"\s*(?:{_HONORIFICS})$")


def asks_who_it_is(query: str) -> str | None:
    """The name ``query`` asks about when it asks who someone is, what they do or what they
    are responsible for, and nothing more (``Who is He Jia?``, ``何佳是谁？``, ``孙悦是做什么的？``,
    ``佐々木さんって誰？``, ``What does Wang Tao do?``, ``老王负责什么？``, ``佐々木さんの担当は？``);
    else ``None``. Search then looks for the name alone. A code is no name: what ``ch-atlas-01`` does
    is asked of the code (:func:`memdir.search.recency.asks_what_it_is`)."""
    text = unicodedata.normalize("NFKC", query).strip()
    for pattern in _WHO:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        name = m.group("name").strip()
        if len(bare := _HONORIFIC.sub("", name)) > 1:  # 王老师 is no 王
            name = bare
        if identifier_spans(name) or name.lower() in _NOT_NAMES:
            return None
        return name
    return None


_NOT_NAMES = frozenset(("this", "that", "it", "he", "she", "they", "you", "we", "i", "there"))

_LINE_HEAD = re.compile(
    r"^[\s>#*+|-]*(?:\d+[.)]\s+)?(?:\d{1,2}:\d{2}(?:\s*[-–~]\s*\d{1,2}:\d{2})?\s*[-–—]?\s*)?"
)
_SUBJECT_END = re.compile(r"[:：|—–]|\s-\s")
_FRONT_MATTER = re.compile(r"^\s*(?:name|names|aka|alias|aliases)\s*:", re.IGNORECASE)
_ALIAS = re.compile(
    r"[A-Z][\w'.-]*|[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{1,4}|@\w+"
)
_PUNCT = re.compile(r"[\s()（）\[\]【】「」/,，、*_`'\"]+")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def is_about(text: str, name: str) -> bool:
    """Whether a line of ``text`` introduces the person ``name``: its subject (what opens it,
    after list, quote, heading and table marks and a time, up to a colon, a dash or the end
    of a table cell) is their name, alone or beside other forms of it (``| 何佳 He Jia |
    backend |``, ``- Wang Tao: SRE``, ``# 佐々木 美穂（Sasaki Miho）``), or front matter names
    them (``aka: [Sasaki Miho]``); not a sentence that opens with them (``- 周岚在外面开会``)
    or names them in passing (``下午找何佳 review``)."""
    want = _fold(name).casefold()
    if not want:
        return False
    for line in _fold(text).splitlines():
        folded = line.casefold()
        if want not in folded:
            continue
        if _FRONT_MATTER.match(folded):
            return True
        head = _LINE_HEAD.match(line)
        start = head.end() if head is not None else 0
        end = _SUBJECT_END.search(line, start)
        if _names_only(line[start : end.start() if end is not None else len(line)], want):
            return True
    return False


def _names_only(segment: str, want: str) -> bool:
    """Whether ``segment`` is the name ``want`` (case-folded), alone or beside other forms of
    it: capitalised words, short CJK runs, a handle, in brackets or not."""
    at = segment.casefold().find(want)
    if at < 0 or not _apart(segment, at, at + len(want)):
        return False
    rest = _PUNCT.sub(" ", segment[:at] + " " + segment[at + len(want) :]).split()
    return all(_ALIAS.fullmatch(word) for word in rest)


def _apart(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` stands apart: no letter, digit or CJK character touches it
    (周岚 in ``周岚 Zhou Lan``, ``周岚（经理）``; not in ``周岚转达 Priya 的话``)."""
    return (start == 0 or not text[start - 1].isalnum()) and (
        end == len(text) or not text[end].isalnum()
    )
