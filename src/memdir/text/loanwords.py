"""Katakana loanwords ↔ the English words they come from (リリース ↔ release), from UniDic.

Japanese writes most technical and design vocabulary as katakana loanwords: a note says
アクセシビリティ, リリース, テスター where an English question says accessibility, release,
testers, and a Japanese question asks about the パッケージ manager of notes that say package.
The two share no character, so keyword search matched nothing and the words counted as
unknown to memory. Like the Chinese bridges (:mod:`memdir.text.bilingual`), search keeps only
the words memory holds (:func:`memdir.search.keyword.query_profile`).

- :func:`katakana_for`: the katakana spellings of an English word (computer → コンピューター,
  コンピュータ);
- :func:`english_words`: for each bigram of the katakana words of a query, their English
  words (パッケージ管理 → パッ, ッケ, ケー, ージ → package): search cuts katakana into grams, as it
  does Chinese.

The table (``data/loanwords.tsv.gz``, 41,551 spellings, 0.6 MB) is made by
``scripts/build_loanwords.py`` from the lemmas of UniDic (unidic-lite 1.0.8), which name each
loanword's source word (``リリース-release``). UniDic is copyright the UniDic Consortium and
used under its BSD licence (``data/UNIDIC-LICENSE``).
"""

from __future__ import annotations

import gzip
import logging
import re
import threading
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["english_words", "holds", "katakana_for", "spellings", "words_in"]

_RUN = re.compile("[\u30a1-\u30fa\u30fc]{2,}")
_KATAKANA = re.compile("[\u30a1-\u30fa\u30fc]")
_ANY_KATAKANA = re.compile("[\u30a1-\u30fa\uff66-\uff9d]")  # half-width too, before NFKC
_LONGEST = 12  # characters: longer katakana words are compounds the table rarely lists
_DATA = Path(__file__).with_name("data") / "loanwords.tsv.gz"

log = logging.getLogger(__name__)

_lock = threading.Lock()
_loaded: _Table | None = None
_RUNS_CACHED = 16_384
"""Katakana runs whose words are kept (:func:`words_in`): the same runs come back in chunk
after chunk."""


@dataclass(slots=True)
class _Table:
    forward: list[str]  # ``katakana<TAB>english|english``, sorted
    backward: list[str]  # ``english<TAB>katakana|katakana``, sorted
    runs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # words_in, cut with this table


def _tables() -> _Table:
    """The table's two parts, each a sorted list of ``key<TAB>word|word`` lines: by katakana
    spelling, then by English word. Looked up by binary search: reading the file takes ~15 ms,
    where building dictionaries of it took ~100 ms, paid by the first search of a process."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _read(_DATA)
    return _loaded


def _read(path: Path) -> _Table:
    """The two parts of the table file; both empty, with a warning, when it is missing or
    damaged (a repackaged install without memdir's data files): search then works as without
    loanwords."""
    try:
        lines = gzip.decompress(path.read_bytes()).decode("utf-8").split("\n")
        gap = lines.index("")
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        log.warning("katakana loanwords unavailable (%s: %s); searching without them", path, exc)
        return _Table([], [])
    return _Table(lines[:gap], [line for line in lines[gap + 1 :] if line])


def _lookup(lines: list[str], key: str) -> list[str]:
    prefix = f"{key}\t"
    at = bisect_left(lines, prefix)
    if at < len(lines) and lines[at].startswith(prefix):
        return lines[at][len(prefix) :].split("|")
    return []


def spellings() -> int:
    """How many katakana spellings the table holds."""
    return len(_tables().forward)


def katakana_for(word: str) -> list[str]:
    """The katakana spellings of an English word or two-word phrase (lower case): release →
    リリース, at most six, the lemma's own spelling first (レビュー before リヴュー). Empty for a word no loanword comes from."""
    return _lookup(_tables().backward, word)


def _english(spelling: str) -> list[str]:
    return _lookup(_tables().forward, spelling)


def english_words(query: str) -> dict[str, list[str]]:
    """For each katakana bigram of ``query`` that lies in a loanword the table lists, that
    word's English words (アクセシビリティ → アク, クセ, … → accessibility). Each katakana run is
    cut into the words the table lists (:func:`words_in`), so a compound gives its parts
    (サインアップ → サイン sign, アップ up)."""
    out: dict[str, list[str]] = {}
    if not _ANY_KATAKANA.search(query):  # most queries: no need to normalise them
        return out
    for run in _RUN.finditer(unicodedata.normalize("NFKC", query)):
        for word in words_in(run.group()):
            english = _english(word)
            if not english:
                continue
            for i in range(len(word) - 1):
                known = out.setdefault(word[i : i + 2], [])
                known.extend(w for w in english if w not in known)
    return out


def words_in(run: str) -> list[str]:
    """The loanwords a katakana run is written with (see :func:`_cut`)."""
    return list(_words_in(run))


def _words_in(run: str) -> tuple[str, ...]:
    """:func:`_cut`, kept per table for the last :data:`_RUNS_CACHED` runs."""
    runs = _tables().runs
    found = runs.get(run)
    if found is None:
        if len(runs) >= _RUNS_CACHED:
            runs.clear()
        found = runs[run] = _cut(run)
    return found


def _cut(run: str) -> tuple[str, ...]:
    """The loanwords a katakana run is written with, read left to right, the longest the table
    lists first: プランニング → プランニング, ユーザーテスト → ユーザー, テスト. Characters no
    listed word starts with are skipped."""
    words: list[str] = []
    at = 0
    while at < len(run) - 1:
        size = next(
            (n for n in range(min(_LONGEST, len(run) - at), 1, -1) if _english(run[at : at + n])),
            0,
        )
        if size:
            words.append(run[at : at + size])
            at += size
        else:
            at += 1
    return tuple(words)


def holds(text: str, word: str) -> bool:
    """Whether ``text`` (as :func:`memdir.text.match_text` gives it) writes the loanword
    ``word`` as a word of its own: ラン (run) is no word of プラン (plan) or ランチ (lunch), and
    デー (day) none of データ, though each is written inside them; テスト is a word of
    ユーザーテスト."""
    at = text.find(word)
    while at >= 0:
        start, end = at, at + len(word)
        while start > 0 and _KATAKANA.match(text[start - 1]):
            start -= 1
        while end < len(text) and _KATAKANA.match(text[end]):
            end += 1
        if word in _words_in(text[start:end]):
            return True
        at = text.find(word, end)
    return False
