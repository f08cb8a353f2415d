"""The offline fallback: an extractive summariser that needs no model.

:class:`ExtractiveSummarizer` has the :class:`~memdir.llm.ChatModel` shape (``complete``,
``acomplete``, ``provider`` and ``model`` both ``"extractive"``) and ``summarize(text or
messages, max_chars=…)``. It is deterministic: the same input gives the same summary.

How it summarises
    1. Text is split into sentences: at every line break, after ``。！？；``, and after
       ``.``, ``!`` or ``?`` followed by a space, the end or a CJK character, unless the word
       before a lone ``.`` is an abbreviation (``e.g.``, ``Dr.``) or an initial. Markdown headings, fenced
       code, HTML comments and table rules are dropped; list and quote markers are removed
       (a to-do box ``[ ]`` is kept). Of messages, only ``user`` and ``assistant`` ones count,
       minus commands (text starting with ``/``) and ``NO_REPLY``; each kept sentence is
       prefixed with its role (``user: …``).
    2. Each sentence is scored by what it carries, in English and CJK: a decision (3), a
       preference or a fact about someone (3), a to-do (3), a date or time (2), an identifier
       such as a path, URL, e-mail, ``code``, version or ticket (2), a name (1), a number (1).
       A question loses 2. Sentences scoring 0, or shorter than 8 characters (a CJK character
       counting 4), are dropped, and so are repeats (compared case- and punctuation-blind).
    3. Within the budget, the highest scores are kept (on a tie, the later sentence: it is the
       more current); a sentence already contained in a kept one is skipped; one sentence is
       at most 400 characters. If even the best does not fit, it is cut to the budget.
    4. The kept sentences are listed in source order, one ``- `` line each.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Self

from memdir.errors import UsageError
from memdir.llm.chat import NO_REPLY, ChatResult, Message, MessageLike, as_messages
from memdir.text import weighted_length
from memdir.text.stopwords import ENGLISH

__all__ = [
    "EXTRACTIVE",
    "ExtractiveSummarizer",
    "sentence_score",
    "sentence_signals",
    "split_sentences",
]

EXTRACTIVE = "extractive"
"""The ``provider`` and ``model`` of the fallback, and of every result it returns."""

MAX_SENTENCE_CHARS = 400
_MIN_WEIGHT = 8

# -- sentence splitting -------------------------------------------------------------------------
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_MARKER = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+•]|\d{1,3}[.)])\s+)?")
_CJK_END = "。！？；"
_CLOSERS = "\"'”’」』）)]》"
_CJK_CHAR = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_BOUNDARY = re.compile(
    rf"[{_CJK_END}]+[{re.escape(_CLOSERS)}]*"
    rf"|[.!?]+[{re.escape(_CLOSERS)}]*(?=\s|$|[{_CJK_CHAR}])"
)
_ABBREVIATIONS = frozenset(
    {
        "e.g", "i.e", "cf", "vs", "al", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt",
        "no", "nos", "approx", "fig", "inc", "ltd", "co", "corp", "dept", "est", "jan", "feb",
        "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)  # fmt: skip


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (Markdown or plain), in order, whitespace collapsed."""
    out: list[str] = []
    in_fence = False
    for raw in _COMMENT.sub(" ", text).splitlines():
        if _FENCE.match(raw):
            in_fence = not in_fence
            continue
        if in_fence or _HEADING.match(raw) or _RULE.match(raw):
            continue
        line = _MARKER.sub("", raw, count=1).strip()
        out.extend(_split_line(line))
    return out


def _split_line(line: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(line):
        if match.group() == "." and not _ends_sentence(line, match.start()):
            continue
        parts.append(line[start : match.end()])
        start = match.end()
    parts.append(line[start:])
    return [" ".join(p.split()) for p in parts if p.strip()]


def _ends_sentence(line: str, dot: int) -> bool:
    """Whether the ``.`` at ``dot`` ends a sentence: not after an abbreviation or an initial."""
    word = re.search(r"([\w.]+)$", line[:dot])
    if word is None:
        return True
    token = word.group(1).lower().strip(".")
    if token in _ABBREVIATIONS:
        return False
    return not (len(token) == 1 and token.isalpha() and line[dot - 1].isupper())


# -- what a sentence carries --------------------------------------------------------------------
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = "january|february|april|june|july|august|september|october|november|december"
_MONTHS_SHORT = "may|march|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
_HAN_NUM = "一二三四五六七八九十两〇零"


def _en(body: str) -> str:
    """An English alternation matched as whole words."""
    return rf"(?<![\w'])(?:{body})(?![\w'])"


_SIGNALS: tuple[tuple[str, int, re.Pattern[str]], ...] = tuple(
    (name, weight, re.compile("|".join(parts), flags))
    for name, weight, flags, parts in (
        (
            "decision",
            3,
            re.IGNORECASE,
            [
                _en(
                    r"decid(?:e|ed|es|ing)|decisions?|cho(?:se|sen|ose|osing)|agreed|agree (?:to|on)"
                    r"|settled on|go(?:ing)? with|went with|opted|picked|approved|rejected"
                    r"|switch(?:ed|ing)? (?:to|from)|mov(?:e|ed|ing) (?:to|from)"
                    r"|(?:will|'ll|shall) use|adopt(?:ed)?|finali[sz]ed|concluded|conclusion"
                    r"|resolved|confirmed|instead of|from now on|the plan is"
                ),
                r"决定|決定|决策|選擇|选择|选定|选了|选用|确定|確定|定了|定下|敲定|拍板|同意|采用"
                r"|採用|改用|改成|换成|換成|就用|決めた|ことにした|にした|결정|선택|합의",
            ],
        ),
        (
            "preference",
            3,
            re.IGNORECASE,
            [
                _en(
                    r"prefer(?:s|red|ring|ences?)?|favou?rites?|likes|loves|hates|dislikes?"
                    r"|enjoys|rather|can'?t stand|allergic|always|never"
                    r"|(?:i|we|he|she|they|you)(?: really| also| don'?t| do not| never| always)?"
                    r" (?:like|love|hate|enjoy|want)"
                    r"|my (?:name|birthday|email|wife|husband|partner|son|daughter|kids?|dog|cat)"
                    r"|(?:i|we) (?:live|work|grew up|was born|am from|'m from|moved)"
                    r"|(?:i'?m|i am) (?:a|an|vegetarian|vegan)"
                ),
                r"喜欢|喜歡|偏好|偏爱|更喜欢|不喜欢|讨厌|討厭|爱吃|最爱|最愛|习惯|習慣|希望|想要|不想"
                r"|宁愿|寧願|总是|總是|从不|從不|从来不|我叫|我是|我住|好き|嫌い|苦手|好み|좋아|싫어|선호",
            ],
        ),
        (
            "todo",
            3,
            re.IGNORECASE,
            [
                _en(
                    r"todo|to-do|action items?|next steps?|follow[- ]?up|remind(?:er)?"
                    r"|remember to|(?:don'?t|do not) forget|needs? to|ha(?:ve|s) to|must"
                    r"|should|deadline|due|asap|let'?s"
                    rf"|by (?:tomorrow|tonight|the end|eod|eow|next|{_WEEKDAYS})"
                    r"|(?:i|we|you)(?:'ll| will|'re going to| are going to|'m going to| am going to)"
                ),
                r"\[ \]",
                r"待办|待辦|要做|需要|记得|記得|别忘|別忘|不要忘|必须|必須|应该|應該|提醒|截止|到期"
                r"|跟进|跟進|下一步|打算|准备|準備|计划|計劃|之前|やること|忘れず|しなければ|予定"
                r"|해야|할 일|마감",
            ],
        ),
        (
            "date",
            2,
            re.IGNORECASE,
            [
                _en(
                    rf"\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?"
                    rf"|{_MONTHS}|{_WEEKDAYS}|(?:{_MONTHS_SHORT})\.? \d{{1,2}}(?:st|nd|rd|th)?"
                    rf"|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS}|{_MONTHS_SHORT})"
                    r"|today|tomorrow|yesterday|tonight|weekend|midnight|noon"
                    rf"|(?:next|last|this|every) (?:week|month|year|quarter|morning|afternoon"
                    rf"|evening|night|{_WEEKDAYS})"
                    r"|\d{1,2}:\d{2}|\d{1,2} ?(?:am|pm|a\.m\.|p\.m\.)|o'clock|(?:19|20)\d{2}"
                    r"|(?:in|within|after) \d+ (?:minutes?|hours?|days?|weeks?|months?|years?)"
                    r"|\d+ (?:days?|weeks?|months?|years?) (?:ago|later|from now)|q[1-4]"
                ),
                rf"\d+\s*[年月日号號点點时時]|[{_HAN_NUM}]+[月日号號点點]|(?:星期|礼拜|禮拜)[一二三四五六日天]"
                r"|[周週][一二三四五六日末]|今天|明天|后天|後天|昨天|前天|今晚|明晚|上午|下午|晚上"
                r"|早上|中午|凌晨|下周|下週|上周|上週|本周|这周|這週|下个月|下個月|上个月|上個月"
                r"|月底|月初|年底|年初|今日|明日|昨日|来週|先週|今週|午前|午後|[月火水木金土日]曜"
                r"|오늘|내일|어제",
            ],
        ),
        (
            "identifier",
            2,
            0,
            [
                r"`[^`\n]+`|https?://\S+|[\w.+-]+@[\w-]+\.[\w.]+",
                r"(?<![\w/])[\w.~-]*(?:/[\w.-]+)+",
                r"(?<!\w)[\w-]+\.(?:py|js|ts|tsx|jsx|md|toml|json|ya?ml|sql|sh|rs|go|java|rb|c|cpp"
                r"|h|html|css|txt|csv|env|cfg|ini|lock|log)(?!\w)",
                r"(?<!\w)(?:[a-z]+_[a-z0-9_]+|[a-z]+[A-Z]\w*)(?!\w)",
                r"(?<!\w)(?!(?:OK|AM|PM|TV|I)(?!\w))[A-Z][A-Z0-9_]{1,}(?!\w)",
                r"(?<!\w)v\d+(?:\.\d+)+|(?<!\w)#\d+(?!\w)|(?<!\w)[A-Z][A-Z0-9]+-\d+(?!\w)",
                r"(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])",
                r"(?<![\w-])--?[a-z][\w-]+",
            ],
        ),
        (
            "name",
            1,
            0,
            [
                r"(?<!\w)@\w{2,}",
                r"[\u4e00-\u9fff]{1,3}(?:先生|女士|小姐|老师|老師|经理|經理|总监|總監|医生|醫生|教授"
                r"|同学|同學)|老[王李张張刘劉陈陳杨楊赵趙黄黃周吴吳]|\w{1,8}?(?:さん|様|くん|ちゃん)",
            ],
        ),
        (
            "number",
            1,
            0,
            [
                r"\d",
                rf"[{_HAN_NUM}百千万萬亿億]+(?:个|個|次|天|年|岁|歲|人|份|倍|元|块|塊|小时|小時"
                r"|分钟|分鐘|页|頁|件|台|本|周|週)",
            ],
        ),
    )
)
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_NOT_NAMES = ENGLISH | frozenset({"i", "i'm", "i'll", "i've", "i'd", "ok", "okay"})
_QUESTION = re.compile(r"[?？]\W*$")


def sentence_signals(sentence: str) -> frozenset[str]:
    """What ``sentence`` carries: ``decision``, ``preference``, ``todo``, ``date``,
    ``identifier``, ``name`` and ``number``, as many as apply."""
    found = {name for name, _, pattern in _SIGNALS if pattern.search(sentence)}
    if _has_name(sentence):
        found.add("name")
    return frozenset(found)


def _has_name(sentence: str) -> bool:
    """A capitalised word that does not start the sentence and is no common word."""
    for i, match in enumerate(_WORD.finditer(sentence)):
        word = match.group()
        if i == 0 or not word[0].isupper() or word.isupper():
            continue
        before = sentence[: match.start()].rstrip()
        if before.endswith((":", '"', "“", "(")):
            continue  # a word that starts a clause or a quote
        if word.lower().rstrip("'’s") not in _NOT_NAMES:
            return True
    return False


_WEIGHTS = {name: weight for name, weight, _ in _SIGNALS}


def sentence_score(sentence: str) -> int:
    """How much ``sentence`` carries: the weights of its :func:`sentence_signals` summed
    (see the module docstring), less 2 for a question."""
    score = sum(_WEIGHTS[s] for s in sentence_signals(sentence))
    if _QUESTION.search(sentence):
        score -= 2
    return score


# -- selection ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Candidate:
    position: int
    score: int
    line: str
    key: str


def _key(text: str) -> str:
    """``text`` compared case-, width- and punctuation-blind."""
    return "".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


def _cut(text: str, limit: int, cost: Callable[[str], float]) -> str:
    """``text`` shortened with ``…`` until it costs at most ``limit``."""
    if cost(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cost(text[:mid].rstrip() + "…") <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else ""


def _candidates(units: Sequence[tuple[str, str]]) -> list[_Candidate]:
    """Scored, deduplicated sentences of ``units`` (prefix, text), in source order."""
    seen: set[str] = set()
    out: list[_Candidate] = []
    for prefix, text in units:
        for sentence in split_sentences(text):
            if weighted_length(sentence) < _MIN_WEIGHT:
                continue
            key = _key(sentence)
            score = sentence_score(sentence)
            if score <= 0 or not key or key in seen:
                continue
            seen.add(key)
            short = _cut(sentence, MAX_SENTENCE_CHARS, len)
            out.append(_Candidate(len(out), score, f"- {prefix}{short}", key))
    return out


def _select(
    candidates: list[_Candidate], budget: float, cost: Callable[[str], float]
) -> tuple[list[str], bool]:
    """The lines that fit ``budget`` (best first, later on a tie), in source order, and
    whether any candidate was left out."""
    chosen: list[_Candidate] = []
    spent = 0.0
    left_out = False
    for cand in sorted(candidates, key=lambda c: (-c.score, -c.position)):
        if any(cand.key in kept.key for kept in chosen):
            continue
        need = cost(cand.line) + (1 if chosen else 0)
        if spent + need <= budget:
            chosen.append(cand)
            spent += need
        else:
            left_out = True
    if not chosen and candidates:
        best = min(candidates, key=lambda c: (-c.score, -c.position))
        line = _cut(best.line, int(budget), cost)
        return ([line] if len(line) > 2 else []), True
    chosen.sort(key=lambda c: c.position)
    return [c.line for c in chosen], left_out


def _tokens(text: str) -> float:
    """The token estimate of ``text``: about 4 characters, or one CJK character, a token."""
    return weighted_length(text) / 4


class ExtractiveSummarizer:
    """The offline fallback chat model: keeps the sentences that carry facts, no model needed.

    ``reason`` says why it is in use (``"no model configured (llm.provider = none)"``,
    ``"OPENAI_API_KEY is not set"``), for the callers that report it.
    """

    provider = EXTRACTIVE
    model = EXTRACTIVE

    def __init__(self, *, reason: str = "no model configured") -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer(reason={self.reason!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release; here for the :class:`~memdir.llm.ChatModel` shape."""

    def summarize(
        self, source: str | Sequence[MessageLike], *, max_chars: int = 2000
    ) -> ChatResult:
        """The key sentences of ``source`` (text, or chat messages) in at most ``max_chars``
        characters, one ``- `` line each; empty text when nothing is worth keeping.
        ``finish_reason`` is ``"length"`` when the budget left some out."""
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise UsageError(f"max_chars must be a whole number >= 1, got {max_chars!r}")
        lines, cut = _select(_candidates(_units(source)), max_chars, len)
        return _result("\n".join(lines), cut)

    async def asummarize(
        self, source: str | Sequence[MessageLike], *, max_chars: int = 2000
    ) -> ChatResult:
        """:meth:`summarize`, awaited (it is quick and runs in the caller's thread)."""
        return self.summarize(source, max_chars=max_chars)

    def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult:
        """The key sentences of the ``user`` and ``assistant`` messages within ``max_tokens``
        (estimated), or ``NO_REPLY`` when none is worth keeping.

        There is no model to follow instructions: ``system`` and ``system`` messages are
        ignored, and every other message is read as conversation, so pass instructions as
        ``system`` (or call :meth:`summarize`). ``temperature`` and ``timeout`` do not apply.
        """
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise UsageError(f"max_tokens must be a whole number >= 1, got {max_tokens!r}")
        candidates = _candidates(_units(as_messages(messages)))
        lines, cut = _select(candidates, max_tokens, _tokens)
        return _result("\n".join(lines) or NO_REPLY, cut)

    async def acomplete(
        self,
        messages: Sequence[MessageLike],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult:
        """:meth:`complete`, awaited."""
        return self.complete(messages, system=system, max_tokens=max_tokens)


def _units(source: str | Sequence[MessageLike]) -> list[tuple[str, str]]:
    """(prefix, text) pairs to summarise: the text itself, or each conversation message."""
    if isinstance(source, str):
        return [("", source)]
    units = []
    for message in as_messages(source):
        if message.role == "system" or _skipped(message):
            continue
        units.append((f"{message.role}: ", message.content))
    return units


def _skipped(message: Message) -> bool:
    text = message.content.strip()
    return not text or text.startswith("/") or text.upper() == NO_REPLY


def _result(text: str, cut: bool) -> ChatResult:
    return ChatResult(
        text=text,
        model=EXTRACTIVE,
        provider=EXTRACTIVE,
        input_tokens=0,
        output_tokens=0,
        finish_reason="length" if cut else "stop",
    )
