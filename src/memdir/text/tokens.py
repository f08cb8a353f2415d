"""Tokenisation shared by indexing, query building, chunk sizing and MMR.

One tokenizer, this module's, decides what the words of a text are, for the index and for
queries alike: :func:`fts_document` writes a chunk's words, space-separated, into the FTS5
column, and :func:`fts_query` quotes the same words of a query. FTS5's ``unicode61`` tokenizer
then sees the same strings on both sides, and only folds case and common diacritics and stems
(porter). Left to split raw text itself, ``unicode61`` (Unicode 6.1 tables) disagreed with
Python's ``\\w`` (Unicode 14+) on about 10,000 code points, so words the index held could not be
found: "İstanbul", a name in bidi isolates, ``bot🤖``, an Arabic word before U+061C, ``замо́к``.

Both sides are normalised the same way first: format characters (Unicode ``Cf``: bidi controls,
zero-width joiners, soft hyphens, U+061C) are removed, except that a zero-width space separates
words; then NFKC (full-width ``ＡＢＣ１２３`` → ``ABC123``) and case folding. A word is a run of
letters, digits and underscores (Python's ``\\w``) that is not CJK, with any combining marks that
follow its characters kept in it (``замо́к``, or the dot that case folding leaves on ``İ``);
``unicode61`` strips the common diacritics among them. English irregular verb forms become their
base form (``chose`` → ``choose``, :mod:`memdir.text.irregular`).

CJK text has no spaces between words, and ``unicode61`` would index a whole run of Han characters
as one token, so a query for one word inside it would never match. Every CJK run (Han, kana,
Hangul) therefore becomes its single characters plus the overlapping bigrams, in documents and
queries alike. Measured on XQuAD-zh this scores nDCG@10 ≈ .97 against .12 for plain ``unicode61``
(see ``bench/``). A Japanese run also gives the kanji pair of a word written with one kana of
okurigana between (受け取り → 受取), and :func:`term_matcher` holds such a pair in either
spelling, so 受取 and 受け取り find each other.

``TOKENIZER_VERSION`` is stored in the index meta: change anything here that alters the output of
:func:`fts_document` and bump it, so existing indexes are rebuilt rather than silently mismatched.
It includes the Unicode version of the running Python, whose tables decide what ``\\w`` matches.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from functools import cache, lru_cache
from itertools import chain, pairwise

from memdir.text import variants
from memdir.text.irregular import BASE_FORMS, base_form
from memdir.text.scripts import line_script
from memdir.text.stopwords import KOREAN_PARTICLES

__all__ = [
    "FTS_TOKENIZE",
    "TOKENIZER_VERSION",
    "fts_document",
    "fts_match",
    "fts_query",
    "fts_query_terms",
    "identifier_spans",
    "is_cjk_gram",
    "is_utf8_encodable",
    "literal_spans",
    "match_text",
    "named_words",
    "nfkc",
    "replace_surrogates",
    "term_matcher",
    "term_surfaces",
    "weighted_length",
    "word_tokens",
]

# v2: English irregular verb forms indexed as their base form; v3: the FTS column holds the words
# of this module's tokenizer, not the raw text; v4: Han variants folded (memdir.text.variants);
# v5: okurigana bigrams (受け取り also as 受取); v6: a snake_case name also as one word
# (events_raw_v2 also as eventsrawv2).
TOKENIZER_VERSION = f"words-v6-{variants.TAG}/unicode-{unicodedata.unidata_version}"
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"

# Han (incl. Ext A, compatibility ideographs, Ext B+), kana, Hangul syllables and jamo, bopomofo.
_CJK_RANGES = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK Ext A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo Ext A
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xD7B0, 0xD7FF),  # Hangul Jamo Ext B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width katakana
    (0x20000, 0x3134F),  # CJK Ext B..G
)
_CJK_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _CJK_RANGES)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}ー]+")
_WORD_CHAR = f"[^\\W{_CJK_CLASS}ー]"  # a letter, digit or underscore that is not CJK
_ASCII_TOKEN = re.compile("[a-z0-9_]+")  # what _tokens() finds in lower-cased ASCII text


def _ranges(code_points: list[int]) -> str:
    """A regex character class body for the sorted ``code_points``."""
    spans: list[list[int]] = []
    for cp in code_points:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in spans)


@cache
def _tables() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The format characters to remove, and the token pattern: a CJK run, or a word with the
    combining marks that follow its characters.

    Built from :mod:`unicodedata` on first use (about 20 ms). Combining marks and format
    characters all lie below U+20000 or in plane 14 (tags, variation selectors).
    """
    marks: list[int] = []
    formats: list[int] = []
    for cp in chain(range(0x20000), range(0xE0000, 0xE1000)):
        category = unicodedata.category(chr(cp))
        if category[0] == "M":
            marks.append(cp)
        elif category == "Cf" and cp != 0x200B:  # a zero-width space separates words
            formats.append(cp)
    token = re.compile(f"[{_CJK_CLASS}ー]+|{_WORD_CHAR}+(?:[{_ranges(marks)}]+{_WORD_CHAR}*)*")
    return re.compile(f"[{_ranges(formats)}]"), token


# Ranges that count as 4 chars-per-token when sizing chunks (OpenClaw's weighting, spec §2.1).
_WIDE = re.compile("[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")


def weighted_length(text: str) -> int:
    """Length used for chunk sizing: code points, with each CJK character counted as 4.

    One CJK character is roughly one token, while Latin text is roughly four characters a token,
    so this keeps chunks of either script near the same token budget.
    """
    return len(text) + 3 * len(_WIDE.findall(text))


_SURROGATE = re.compile("[\ud800-\udfff]")


def is_utf8_encodable(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (a file name decoded with ``surrogateescape``
    from bytes that are not UTF-8, say), so that it can be stored and shown as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def replace_surrogates(text: str) -> str:
    """``text`` with lone surrogates (which JSON escapes such as ``"\\ud800"`` can produce, and
    UTF-8 cannot encode) replaced by U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _cjk_grams(run: str) -> Iterator[str]:
    """Unigrams and overlapping bigrams of a CJK run, in reading order."""
    for i, ch in enumerate(run):
        yield ch
        if i + 1 < len(run):
            yield run[i : i + 2]


_KANJI = "\u3400-\u4dbf\u4e00-\u9fff"
_PARTICLES = frozenset("のはがをにでとへもやかなねよだてたばさ")
"""Hiragana that join two words (東京の会議, 佐藤さん在…), not two halves of one."""
_OKURIGANA_SET = frozenset(chr(c) for c in range(0x3041, 0x3097)) - _PARTICLES
"""The kana that may stand between the two kanji of one word (受け取り): for
:func:`_okurigana_grams` and the kanji-pair test of :func:`term_matcher` alike."""
_OKURIGANA = re.compile(f"(?=([{_KANJI}])[{''.join(sorted(_OKURIGANA_SET))}]([{_KANJI}]))")
_KANJI_PAIR = re.compile(f"[{_KANJI}]{{2}}")


def _okurigana_grams(run: str) -> list[str]:
    """The two kanji of a word written with one kana of okurigana between them, as the bigram
    the word is also written as: 受け取り and 受取 are one word, 申し込み and 申込, 引っ越し and
    引越. Both documents and queries get it, so either spelling finds the other."""
    if not _HIRAGANA.search(run):
        return []
    return [m.group(1) + m.group(2) for m in _OKURIGANA.finditer(run)]


def _normalise(text: str) -> str:
    """Format characters removed, NFKC (full-width Latin and digits, half-width kana folded to
    their usual forms), case folding, then Han variants in one form (佐々木美穂 → 佐佐木美穗,
    :func:`memdir.text.variants.fold`); the same for documents and queries."""
    formats, _ = _tables()
    if formats.search(text):
        text = formats.sub("", text)
    return variants.fold(unicodedata.normalize("NFKC", text).casefold())


def _tokens(text: str) -> list[str]:
    """The words of ``text`` (normalised), each CJK run as unigrams plus bigrams."""
    if text.isascii():
        # What the general path gives for ASCII (NFKC and case folding change nothing more
        # than lower-casing there), several times faster.
        return _ASCII_TOKEN.findall(text.lower())
    found = _tables()[1].findall(_normalise(text))
    if not _CJK_RUN.search(text):
        return found
    out: list[str] = []
    for token in found:
        if token.isascii() or not _CJK_RUN.match(token):
            out.append(token)
        else:
            out.extend(_cjk_grams(token))
            out.extend(_okurigana_grams(token))
    return out


def fts_document(text: str) -> str:
    """The FTS5 column for ``text``: its words, space-separated, as :func:`word_tokens` finds
    them, with English irregular verb forms as their base form (chose → choose); after them,
    each snake_case name's parts written as one word (``max_replicas`` also as
    ``maxreplicas``, which FTS5 would hold only as ``max`` and ``replicas``): the token a
    camelCase ``maxReplicas`` is, so that search finds either spelling by one word
    (:func:`memdir.search.spellings.case_spellings`); and so each hyphenated name's, its parts
    each starting with a letter (``relay-staging`` also as ``relaystaging``; not ``OPS-1234``
    or a date): "is this run of the question's words one name in memory?" is then a look-up
    in the vocabulary (:func:`memdir.search.spellings.runs_as_names`). At the end, not beside
    the name, so that the phrase of a code holding it (``max_inflight=512``) stays whole."""
    tokens = _tokens(text)
    words = " ".join(map(BASE_FORMS.get, tokens, tokens))
    if "_" not in text and "-" not in text:
        return words
    joined: list[str] = []
    if "_" in text:
        joined += [
            "".join(parts)
            for token in tokens
            if "_" in token and len(parts := [p for p in token.split("_") if p]) > 1
        ]
    if "-" in text:  # read in the text as written: a name is ASCII
        joined += [
            name.replace("-", "").lower()
            for run in _ASCII_RUN.findall(text)
            if "-" in run and _HYPHENATED.fullmatch(name := run.split(".", 1)[0])
        ]
    # after the text, so that the phrases of the words stay whole (max_inflight=512)
    return f"{words} {' '.join(joined)}" if joined else words


_ASCII_RUN = re.compile(r"[A-Za-z0-9_.\-]+")
_HYPHENATED = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)+")
"""A hyphenated name, the whole of a run of ASCII word characters, dots and hyphens up to its
first dot (a full stop, a file's extension): words joined by hyphens, each starting with a
letter (``relay-staging``, ``nats-relay-stg``, ``values-staging.yaml``; not ``OPS-1234``,
``2026-12-05``, ``v1.15.0-rc1``, ``broker.dual-write``)."""


def blank_spans(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with each character inside one of ``spans`` (``(start, end)``) made a space:
    the words of a question that say how it asks (a day, "what is new", "search my notes
    for") taken out of its terms, the rest where it was."""
    return "".join(" " if any(a <= i < b for a, b in spans) else c for i, c in enumerate(text))


def word_tokens(text: str) -> list[str]:
    """Normalised word tokens: words whole, CJK runs as unigrams plus bigrams."""
    return _tokens(text)


# Function words of CJK questions, removed from a query's CJK runs before they are cut into
# grams, so that neither they nor the bigrams that straddle them ("次的", "是什" in
# "那次的根因是什么") count as terms a note must hold. Several characters long, or single
# characters that are almost never part of a content word: "能" (性能), "会" (会议) and "过"
# (过期) stay. Korean is handled whole-word (see _korean_piece).
_ZH_FUNCTION = (
    "是不是", "有没有", "为什么", "什么时候", "怎么样", "什么", "哪个", "哪些", "哪里", "哪儿", "哪天",
    "哪一", "哪家", "哪位", "怎么", "怎样", "如何", "多少", "多久", "几点", "几个", "几次", "是否",
    "是谁", "谁", "那次", "这次", "那个", "这个", "那些", "这些", "我们", "你们", "他们", "咱们",
    "一下", "请问", "当时", "目前", "当前", "如今", "眼下", "现阶段", "这阵子", "当初", "时候",
    "大概", "大约", "左右", "到底", "究竟", "多长", "一共", "何时", "为何", "何处", "何种", "何为", "任何", "至今",
    # the first or the last time: the order of the results answers it (search.recency)
    "第一次", "头一次", "最后一次", "上一次", "上回",
    # what someone did or was doing: the question's frame, not the 在做 or 做 of a note
    "在做什么", "做了什么", "做了些什么", "在干什么", "干了什么", "在干嘛", "干嘛", "做什么", "干什么",
    "的工作",  # 9月1日至9月3日的工作, 何佳的工作: whatever they did, not the word 工作
    # asking whether memory holds something: 你还记得…吗, 我之前有没有提到过… (words about
    # memory itself, which no note writes about its subject)
    "还记得", "记不记得", "记得", "提到过", "提起过", "说起过", "提过",
    "的", "了", "吗", "呢", "吧", "啊", "呀", "嘛", "么", "是",
)  # fmt: skip
_JA_FUNCTION = ("何", "誰", "今", "現在", "覚えて")
"""Function words of Japanese questions (questions holding kana). In a Chinese question 何 and
今 are parts of words: the surname of 何佳 (``Mo 和何佳的 1:1 上聊了什么？`` was searched
for 佳 alone), 今年 (this year). In a Japanese one, 何 before a kanji is a question word only
before a counter or in a word such as 何故 (:data:`_JA_WHAT_BEFORE`): before another kanji it
begins a name (``何佳って誰？``)."""

_JA_WHAT_BEFORE = (
    "時人度回年月日歳個本枚件分秒曜番階週割倍台通杯円万千百点位名社号席泊行章話部冊軒足着匹"
    "頭羽種段層期組問品箇列桁代項票例者事色語故処處様方等卒"
)
"""The kanji after which 何 is the question word of a Japanese question: counters (何回, 何人,
何時, 何曜日) and 何故, 何処, 何者, 何色 … (matched in the form search folds them to: 時 → 时)."""
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # with the ideographs NFKC leaves (﨑)


@cache
def _function_re(japanese: bool = True) -> re.Pattern[str]:
    """The function words above (those of Japanese questions only when ``japanese``), plus
    every CJK stop word of two or more characters (``目前``, ``最近``, ``之前`` …), longest
    first."""
    from memdir.text.stopwords import CHINESE, JAPANESE

    multi = {w for w in CHINESE | JAPANESE if len(w) > 1 and _CJK_RUN.fullmatch(w)}
    own = set(_ZH_FUNCTION) | (set(_JA_FUNCTION) if japanese else set())
    # matched against normalised text, so in the same form (誰 → 谁, 現在 → 现在)
    folded = {variants.fold(w) for w in own | multi} - {"何"}
    words = [re.escape(w) for w in sorted(folded, key=len, reverse=True)]
    if japanese:  # 何 before a kana, or before a counter, not before the rest of a name
        after = "".join(sorted({variants.fold(c) for c in _JA_WHAT_BEFORE}))
        words.append(f"何(?=[{after}]|[^{_HAN}]|$)")
    return re.compile("|".join(words))


_HIRAGANA = re.compile("[\u3040-\u309f]+")
_HANGUL_RUN = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]+")
_KOREAN_ASKING = (
    "누구", "누가", "무엇", "무슨", "어디", "언제", "어떻게", "어땠", "어때", "어떤", "어느",
    "얼마", "뭐", "뭘", "뭔", "왜", "몇",
)  # fmt: skip
_KOREAN_AFTER_ASKING = frozenset((
    "", *KOREAN_PARTICLES, "랑", "이랑", "하고", "서", "나", "든", "든지", "쯤",
    "야", "이야", "예요", "이에요", "에요", "요", "지", "였어", "였나요", "인가요", "인지",
    "니", "냐", "나요", "어", "어요",
))  # fmt: skip
_KOREAN_COUNTERS = frozenset("시분명개번살일월년주달")
"""A Korean question word (누구, 어디, 몇) and what may follow it in one word: a particle, a
copula or question ending, a counter and its particle (누구랑, 누구야, 어디서, 얼마나, 몇시에).
Such a word asks; it names nothing a note holds."""
_KOREAN_ENDINGS = (
    "했습니까", "했나요", "했어요", "했니", "했냐", "했지", "했어", "했다", "하나요", "합니까",
    "해요", "하니", "하냐", "하지", "해", "였나요", "였어요", "었나요", "었어요", "았나요",
    "았어요", "였어", "었어", "았어", "습니까", "나요", "어요", "아요", "니", "냐", "어",
)  # fmt: skip
"""The endings of the verb that closes a Korean question (확정해, 먹었어, 만났어, 했나요), longest
first: what is left is the stem a note writes in its own form (확정하기로, 먹었다, 만났다). One
syllable only where no noun would end so: 니, 냐, 어 after a past tense (만났어, not 어머니), 해
after two syllables (확정해, not 피해 or 올해)."""
_KOREAN_LIGHT = frozenset(("하", "되", "됐", "있", "없", "이", "했"))
"""Stems that say nothing of their own (했어 alone is "did")."""
_KOREAN_ASKING_FOR = ("줘", "주세요", "줄래", "줄래요")
"""A request to whoever answers (알려줘, 보여주세요): no word a note holds."""

# An identifier: words joined by -./:=#@+ ("OPS-1234", "v1.13.2", "max_tokens=8192",
# "deploy/relay/values.yaml"). Searched as a phrase of its words, not as loose words.
# It starts only where a run of word characters starts (the lookbehind), which changes no match
# but keeps a long run without a separator linear: tried at every offset, a 2,000-character
# word took 56 ms.
_IDENTIFIER = re.compile(f"(?<!{_WORD_CHAR}){_WORD_CHAR}++(?:[-./:=#@+]{_WORD_CHAR}++)+")


def _is_identifier(span: str) -> bool:
    """Whether a joined span names something exactly: it has a digit, an underscore, an
    upper-case letter or a separator other than a hyphen ("on-call" stays two words)."""
    return any(c.isdigit() or c == "_" or c.isupper() or c in "./:=#@+" for c in span)


def _identifiers(text: str) -> Iterator[re.Match[str]]:
    """The identifiers of a question (``text`` normalised), in order: the joined spans that
    :func:`_is_identifier` says are one, and the hyphenated ones written as code, between
    backticks (`` `relay-workers` ``), as a long option (``--dry-run``) or as a channel, tag
    or handle (``#tw-hoshimi``, ``@ops-bot``), which a hyphenated word of prose (on-call) is
    not."""
    quoted = [m.span(1) for m in _BACKTICKED.finditer(text)]
    quoted += [m.span() for m in _LONG_OPTION.finditer(text)]
    for match in _IDENTIFIER.finditer(text):
        start, end = match.span()
        if (
            _is_identifier(match.group())
            or (start and text[start - 1] in "#@")
            or any(a <= start and end <= b for a, b in quoted)
        ):
            yield match


_BACKTICKED = re.compile(r"`([^`\n]+)`")
MAX_LITERAL = 80
"""The longest span between backticks a question is searched for as written."""
_LONG_OPTION = re.compile(r"(?<![\w`-])--[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*")
_HAS_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def literal_spans(query: str) -> list[str]:
    """What a question writes between backticks, as code is written (`` `--check` ``,
    `` `nats://` ``, `` `relay-workers` ``, `` `SHOW POOLS` ``), and the long options it
    writes outside them (``--dry-run``, ``--nb-radius-md``), which prose never writes: meant
    as written, so a note holding it is what the question is about. Distinct, in order,
    NFKC-normalised (:func:`nfkc`) and stripped; only those holding a letter or digit, no CJK character
    (`` `大促` `` is a word in quotes) and at most :data:`MAX_LITERAL` characters."""
    text = nfkc(query)
    quoted = [(m.start(), m.group(1).strip()) for m in _BACKTICKED.finditer(text)]
    bare = _BACKTICKED.sub(lambda m: " " * len(m.group()), text)  # offsets kept
    options = [(m.start(), m.group()) for m in _LONG_OPTION.finditer(bare)]
    spans = (s for _, s in sorted(quoted + options))
    return list(
        dict.fromkeys(
            s
            for s in spans
            if len(s) <= MAX_LITERAL and any(c.isalnum() for c in s) and not _HAS_CJK.search(s)
        )
    )


def identifier_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` names identifiers (``OPS-1234``, ``v1.13.2``, ``max_tokens=8192``, and
    single words with a digit or an underscore: ``0x80AB``, ``max_inflight``), and numbers
    of pull requests or issues (``PR #482``, ``#17``), as ``(start, end)`` offsets."""
    spans = [m.span() for m in _IDENTIFIER.finditer(text) if _is_identifier(m.group())]
    spans += [m.span() for m in _NUMBERED.finditer(text)]
    taken = [False] * (len(text) + 1)
    for a, b in spans:
        taken[a:b] = [True] * (b - a)
    for m in _LONE_IDENTIFIER.finditer(text):
        word = m.group()
        has_digit = any(c.isdigit() for c in word)
        if not taken[m.start()] and ("_" in word or (has_digit and not word.isdigit())):
            spans.append(m.span())
    return sorted(spans)


_NUMBERED = re.compile(r"(?a:(?:\b(?:PR|MR|pr|mr|[Ii]ssue)[ \t]*)?(?<![\w#])#\d+\b)")  # 的 after
_LONE_IDENTIFIER = re.compile(r"(?<![\w])[A-Za-z0-9_]+(?![\w])", re.ASCII)


def _content_pieces(run: str, japanese: bool = True, last: bool = False) -> list[str]:
    """A CJK run of a query without its function words, as the pieces between them; those of
    Japanese questions (:data:`_JA_FUNCTION`) only when ``japanese``. A Korean word is taken
    whole (:func:`_korean_piece`); ``last``: it is the question's last, its verb.

    Hiragana is dropped from runs that also hold kanji or katakana: in a Japanese question it
    is particles and inflection (東京に来ますか → 東京, 来); a run of hiragana alone is kept.
    """
    if _HANGUL_RUN.fullmatch(run):
        piece = _korean_piece(run, last)
        return [piece] if piece else []
    pieces = [p for p in _function_re(japanese).split(run) if p]
    if _HIRAGANA.sub("", run):  # not hiragana only
        pieces = [q for p in pieces for q in _HIRAGANA.split(p) if q]
    return pieces


def _past(syllable: str) -> bool:
    """Whether a Hangul syllable ends in ㅆ, as the past tense does (했, 었, 났, 갔)."""
    code = ord(syllable) - 0xAC00
    return 0 <= code < 11172 and code % 28 == 20


def _korean_piece(word: str, last: bool = False) -> str:
    """A Korean word of a question as a note may write it: ``""`` for a question word with
    what follows it (누구랑, 어디서: :data:`_KOREAN_ASKING`) or a request (알려줘); the last
    word, the verb that closes the question, without its ending (확정해 → 확정, 먹었어 → 먹;
    ``""`` for a light verb alone: 했어); any other without its particle (일정은 → 일정)."""
    for asking in _KOREAN_ASKING:
        rest = word[len(asking) :] if word.startswith(asking) else None
        if rest is not None and (
            rest in _KOREAN_AFTER_ASKING
            or (rest[:1] in _KOREAN_COUNTERS and rest[1:] in _KOREAN_AFTER_ASKING)
        ):
            return ""
    if word.endswith(_KOREAN_ASKING_FOR):
        return ""
    if last:
        for ending in _KOREAN_ENDINGS:
            if not word.endswith(ending):
                continue
            stem = word[: -len(ending)]
            if ending == "해" and len(stem) == 1:
                continue  # 피해, 이해, 올해: a noun (확정해 is a verb of two syllables and 해)
            if ending in ("니", "냐", "어") and not (stem and _past(stem[-1])):
                continue  # 어머니, 언니 end in 니: one syllable is an ending after a past tense
            return "" if not stem or stem in _KOREAN_LIGHT else stem
    for particle in KOREAN_PARTICLES:
        # a particle of one syllable leaves a stem of two at least: 회의, 속도, 가을 end so
        if word.endswith(particle) and len(word) - len(particle) >= (1 if len(particle) > 1 else 2):
            word = word[: -len(particle)]
            break
    return word


def _query_tokens(text: str) -> list[str]:
    """The words of a query's text (no identifiers in it): as :func:`word_tokens`, but with the
    function words of CJK questions removed before the runs are cut into grams."""
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    out: list[str] = []
    japanese = line_script(text) == "ja"  # it holds kana
    tokens = _tables()[1].findall(_normalise(text))
    hangul = [i for i, token in enumerate(tokens) if _HANGUL_RUN.fullmatch(token)]
    verb = hangul[-1] if hangul and hangul[-1] == len(tokens) - 1 else None
    for i, token in enumerate(tokens):
        if token.isascii() or not _CJK_RUN.match(token):
            out.append(token)
        else:
            for piece in _content_pieces(token, japanese, last=i == verb):
                out.extend(_cjk_grams(piece))
            out.extend(_okurigana_grams(token))
    return out


_HYPHENS = str.maketrans(dict.fromkeys("\u2010\u2212", "-"))
"""The hyphen and the minus sign that NFKC leaves as they are (a non-breaking hyphen becomes
U+2010): an identifier written with one (``OPS‑1234``, as language models write it) is the
same code, not two loose words. Not the en dash, which joins a range or a pair in prose
(2019–2021, Tokyo–Osaka)."""


def nfkc(text: str) -> str:
    """``text`` in NFKC, its hyphens ASCII (:data:`_HYPHENS`); character for character, so its
    offsets are those of the NFKC text."""
    text = unicodedata.normalize("NFKC", text)
    # str.translate walks every character in Python: only when there is one to translate
    return text.translate(_HYPHENS) if "\u2010" in text or "\u2212" in text else text


def fts_query_terms(
    query: str, *, stopwords: frozenset[str] = frozenset(), alone: bool = True
) -> list[str]:
    """Distinct query terms in order, with stop words dropped unless nothing else would remain
    (``alone=False``: dropped even then, when the query says something besides its words).

    A term is one FTS token, or several separated by spaces: an identifier, searched as a
    phrase (``"OPS-1234"`` → ``"ops 1234"``), so that a note naming OPS-1243 or another OPS
    ticket does not match it. The function words of CJK questions are not terms.
    """
    formats, _ = _tables()
    text = formats.sub("", query) if formats.search(query) else query
    text = nfkc(text)
    terms: list[str] = []
    at = 0
    for match in _identifiers(text):
        span = match.group()
        terms.extend(_query_tokens(text[at : match.start()]))
        words = [base_form(t) for t in _tokens(span)]
        terms.append(" ".join(words) if len(words) > 1 else words[0])
        at = match.end()
    terms.extend(_query_tokens(text[at:]))
    terms = [base_form(t) if " " not in t else t for t in terms]
    distinct = list(dict.fromkeys(t for t in terms if t))
    stopwords = _folded(frozenset(stopwords))
    kept = [t for t in distinct if t not in stopwords]
    if kept or not alone:
        return kept
    # Only stop words: search them all, function words included, rather than nothing.
    return distinct or list(dict.fromkeys(base_form(t) for t in word_tokens(query)))


@lru_cache(maxsize=8)
def _folded(words: frozenset[str]) -> frozenset[str]:
    """Stop words in the form query terms take (先週 → 先周), to be compared with them."""
    return frozenset(variants.fold(w) for w in words)


_ASCII_WORD = re.compile(r"[A-Za-z]+")
_KATAKANA_RUN = re.compile("[\u30a0-\u30ff]+")


def term_surfaces(query: str, terms: Sequence[str]) -> list[str]:
    """How ``query`` writes each of ``terms`` (terms of :func:`fts_query_terms`), to show them
    to a person: ``paypal`` → ``PayPal``, the phrase ``ops 9999`` → ``OPS-9999``. A term the
    query does not write as such is given as it is (a Chinese bigram), or as the word it is
    part of: the base form of an irregular verb as the query's form of it (``sink`` →
    ``sank``), a gram of katakana or Hangul as the loanword or Korean word it is cut from
    (``パッ`` → ``パッケージ``), a Han gram in the query's characters (``美穗`` → ``美穂``)."""
    text = nfkc(query)
    folded = None if text.isascii() else variants.fold(text)
    phrases: dict[str, str] = {}
    for match in _identifiers(text):
        span = match.group()
        phrases.setdefault(" ".join(base_form(t) for t in _tokens(span)), span)
    out: list[str] = []
    for term in terms:
        if " " in term:
            out.append(phrases.get(term, term))
        elif term.isascii():
            found = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE)
            if found is None:  # an irregular form: sank for sink
                found = next(
                    (m for m in _ASCII_WORD.finditer(text) if base_form(m.group().lower()) == term),
                    None,
                )
            out.append(found.group() if found else term)
        elif _KATAKANA_RUN.fullmatch(term) or _HANGUL_RUN.fullmatch(term):
            # a loanword's or a Korean word's grams: the word (パッ → パッケージ, 정했 → 결정했나요)
            run = _KATAKANA_RUN if _KATAKANA_RUN.fullmatch(term) else _HANGUL_RUN
            found = next((m for m in run.finditer(text) if term in m.group()), None)
            out.append(found.group() if found else term)
        else:  # a CJK gram, in the query's own characters (美穂, not 美穗); folding keeps offsets
            at = folded.find(term) if folded is not None else -1
            out.append(text[at : at + len(term)] if at >= 0 else term)
    return out


_CALENDAR = frozenset((
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "january", "february", "march", "april", "june", "july", "august", "september", "october",
    "november", "december", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat",
    "sun", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
))  # fmt: skip
_CAPITAL_WORD = re.compile("(?<![A-Za-z0-9_'])[A-Z][A-Za-z0-9]*")
_SENTENCE_END = frozenset(".?!:;。？！：；\n")


def named_words(query: str) -> set[str]:
    """The words of ``query`` written with a capital where no sentence starts, months and
    weekdays aside, lower-cased: the names a question uses (``PayPal`` and ``Consul`` in "When
    did we add PayPal, not Consul?", not ``When``)."""
    found = set()
    for match in _CAPITAL_WORD.finditer(query):
        before = query[: match.start()].rstrip()
        if not before or before[-1] in _SENTENCE_END:
            continue
        word = match.group().lower()
        if word not in _CALENDAR:
            found.add(word)
    return found


_ASKED_KIND = re.compile(
    r"\b(?:which|what|whose)(?:\s+(?:kind|sort|type)\s+of)?\s+([a-z]+|\d+)(?:\s+([a-z]+))?", re.I
)
_KIND_MODIFIERS = frozenset((
    "other", "new", "old", "first", "last", "next", "same", "exact", "main", "big", "small",
    "best", "latest", "current", "previous", "second", "third", "final", "specific",
    "particular", "different", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "few", "many", "several", "additional", "extra", "actual", "original", "initial",
))  # fmt: skip
"""Words that stand between which / what and the kind of the answer (what other tools, which
new laptop, what two cities); a number does too (what 3 options). Both the modifier and the
word after it are kinds of the answer (:func:`asked_kinds`)."""
_NO_KIND = frozenset((
    "am", "is", "was", "are", "were", "be", "been", "did", "does", "do", "has", "have", "had", "will",
    "would", "can", "could", "should", "shall", "may", "might", "must", "of", "the", "a", "an",
    "to", "in", "on", "for", "about", "if", "i", "we", "you", "he", "she", "they", "it", "this",
    "that", "these", "those", "my", "our", "your", "his", "her", "their", "its", "else",
    "exactly",
    "time", "day", "date",  # what time / day / date: the next word may be the kind
))  # fmt: skip


_ASKS_AFTER = ("and", "or", "but")


def asked_kinds(query: str) -> set[str]:
    """The words an English question names the kind of its answer by, lower-cased: the word
    right after which, what or whose (or what kind of) where a question starts, or a part of
    one after and / or / but: train in "Which train does Mo take to Hangzhou?", database in
    "…, and what database experience did she bring?". Not in a relative clause ("a ligand which
    signals", "the rate at which cells convert"). The answer names an instance of the kind
    (高铁, PostgreSQL), so that memory lacks the kind's word says little
    (:func:`memdir.search.keyword.query_profile`)."""
    kinds = set()
    for match in _ASKED_KIND.finditer(query):
        before = query[: match.start()].rstrip()
        opens = not before or before[-1] in _SENTENCE_END
        if not opens and before[-1].isalpha():
            last = before.rsplit(None, 1)[-1].lower()
            opens = last in _ASKS_AFTER
        word = match.group(1).lower()
        if (word.isdigit() or word in _KIND_MODIFIERS) and match.group(2):
            # the kind is the word the modifier qualifies, and the modifier tells no more
            # (which three colours: the notes write 3, or name them)
            if opens:
                kinds.add(word)
            word = match.group(2).lower()
        # a verb in the past asks what did something ("what happened", "what went wrong")
        verb = word.endswith("ed") or word in BASE_FORMS
        if opens and word not in _NO_KIND and not verb:
            kinds.add(word)
    return kinds


def fts_query(query: str, *, stopwords: frozenset[str] = frozenset()) -> str | None:
    """Build a safe FTS5 MATCH expression: every term quoted, joined with OR.

    Quoting neutralises FTS5 syntax (``AND``, ``NEAR``, ``*``, ``-``, ``:``); a quoted term of
    several words is a phrase. Terms are OR-ed and left to BM25 to rank, so a question phrased
    in full still finds the lines that share its important words. Returns ``None`` when the
    query has no searchable term.
    """
    return fts_match(fts_query_terms(query, stopwords=stopwords))


def is_katakana_word(word: str) -> bool:
    """Whether ``word`` is katakana only, two characters or more (a loanword, or a query's
    gram of one)."""
    return len(word) > 1 and _KATAKANA_RUN.fullmatch(word) is not None


def is_cjk_gram(term: str) -> bool:
    """Whether a query term is a CJK character or bigram, not a word or an identifier's
    phrase."""
    return not term.isascii() and " " not in term and all(not c.isascii() for c in term)


def bridge_term(word: str) -> str:
    """The query term of a word another language gives a term (a bridge): the word itself,
    or, for a katakana loanword (リリース) or a CJK word of three characters or more (连接池),
    the phrase of the grams a document holds it as (``リ リリ リ リー ー ース ス``), which FTS5
    matches as a phrase and :func:`term_matcher` is not given (it reads the word itself); so
    too a word of CJK and other characters (``30 秒``: ``30 秒``, ``13 分钟``: ``13 分 分钟 钟``)."""
    if is_katakana_word(word) or (len(word) > 2 and _CJK_RUN.fullmatch(word)):
        return fts_document(word)
    if not word.isascii() and _CJK_RUN.search(word) and not _CJK_RUN.fullmatch(word):
        # CJK beside what is not (30 秒, 16.8 万): the document's grams
        return fts_document(word)
    return word


def fts_match(terms: list[str]) -> str | None:
    """The MATCH expression of :func:`fts_query` for terms already made by
    :func:`fts_query_terms`; ``None`` for no term."""
    if not terms:
        return None
    return " OR ".join('"' + t + '"' for t in terms)


def match_text(text: str) -> str:
    """``text`` normalised as the tokenizer sees it (lower-cased, NFKC, format characters
    removed), for :func:`term_matcher` to search."""
    return text.lower() if text.isascii() else _normalise(text)


_SURFACES: dict[str, list[str]] = {}
for _surface, _base in BASE_FORMS.items():
    _SURFACES.setdefault(_base, []).append(_surface)


def _forms(word: str) -> list[str]:
    """Inflected forms of an English word (deploy → deploys, deployed, deploying …) and the
    irregular ones (go → went); other words as they are."""
    if not word.isascii() or not word.isalpha() or len(word) < 3:
        return [word, *_SURFACES.get(word, ())]
    stem = word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            break
    forms = {word, stem, *_SURFACES.get(word, ())}
    for base in {word, stem}:
        forms.update(base + end for end in ("s", "es", "ed", "ing", "ly", "er", "d"))
        if base.endswith("e"):
            forms.update((base[:-1] + "ing", base[:-1] + "ed"))
        if base.endswith("y"):
            forms.update((base[:-1] + "ies", base[:-1] + "ied"))
        if base[-1] not in "aeiouwxy":
            forms.update((base + base[-1] + "ed", base + base[-1] + "ing"))
    return sorted(forms, key=len, reverse=True)


@lru_cache(maxsize=4096)
def term_matcher(term: str) -> Callable[[str], bool]:
    """A test of whether text made by :func:`match_text` holds ``term`` (a query term of
    :func:`fts_query_terms`): a CJK gram as it is (two kanji also with one kana of okurigana
    between them: 受取 in 受け取り), a word in any of its English forms as a whole word, an
    identifier's words in order with only punctuation or underscores between them (ops 1234 in
    OPS-1234, proto 1026 in Proto_1026, as FTS5 reads them).

    Whether a chunk *holds* each term is asked of the few candidates FTS5 found, and this
    answers it without tokenising them again: an English word by ``str.find`` of the stem its
    forms share, checked as a whole word; a phrase by a substring test first (C speed, and most
    candidates lack most terms), a regex only when it passes. A looser notion of a match than
    FTS5's porter stems, which only shifts what counts as held."""
    if _CJK_RUN.fullmatch(term):
        if len(term) == 2 and _KANJI_PAIR.fullmatch(term):
            # the pair is also held written with its okurigana between (受取 in 受け取り)
            first, second = term

            def held(text: str) -> bool:
                if term in text:
                    return True
                if second not in text:
                    return False
                at = text.find(first)
                while at >= 0:  # str.find, not a regex compiled for every new term
                    if text[at + 2 : at + 3] == second and text[at + 1 : at + 2] in _OKURIGANA_SET:
                        return True
                    at = text.find(first, at + 1)
                return False

            return held
        return lambda text: term in text
    parts = term.split(" ")
    if len(parts) == 1 and term.isascii():
        forms = frozenset(_forms(term))
        anchor = min(forms, key=len)
        while anchor and not all(f.startswith(anchor) for f in forms):
            anchor = anchor[:-1]
        if anchor:
            return lambda text: _holds_word(text, anchor, forms)
    if len(parts) == 1:
        body = "|".join(map(re.escape, _forms(term)))
    else:  # the parts in order, a gap between; none needed beside CJK (30 秒 in 30秒, as FTS5)
        gaps = ["[\\W_]+" if (a[-1] + b[0]).isascii() else "[\\W_]*" for a, b in pairwise(parts)]
        body = re.escape(parts[0]) + "".join(
            g + re.escape(p) for g, p in zip(gaps, parts[1:], strict=True)
        )
    # An ASCII boundary: the whole-class lookbehind of _WORD_CHAR, tried at every position of
    # the text, made this 20x slower; a word next to a non-ASCII letter is rare enough.
    search = re.compile(f"(?<![0-9a-z_])(?:{body})(?![0-9a-z_])").search
    if len(parts) == 1:  # irregular forms (go, went) share no stem to look for first
        return lambda text: search(text) is not None
    first = parts[0]
    return lambda text: first in text and search(text) is not None


_ASCII_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _holds_word(text: str, anchor: str, forms: frozenset[str]) -> bool:
    """Whether ``text`` has, as a whole ASCII word, one of ``forms`` (which all start with
    ``anchor``): found with ``str.find``, no regex to compile for every new query word."""
    at = text.find(anchor)
    end = len(text)
    while at != -1:
        if at == 0 or text[at - 1] not in _ASCII_WORD_CHARS:
            stop = at + len(anchor)
            while stop < end and text[stop] in _ASCII_WORD_CHARS:
                stop += 1
            if text[at:stop] in forms:
                return True
        at = text.find(anchor, at + 1)
    return False
