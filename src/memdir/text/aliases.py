"""Names a memory writes two ways, as its notes declare them: ``老王 (Wang Tao)``, ``Ken Ishida
（石田健）``, ``| 何佳 He Jia |``, ``佐藤健太 Sato Kenta``.

A people note or ``MEMORY.md`` introduces a person in both scripts once; daily entries then
write one form only (``和老王吃了兰州拉面``, ``Ken found a focus-ring bug``). A question in the
other form (``What did Wang Tao say about RabbitMQ?``, ``石田さんが見つけたバグは？``) shares no
word with those entries: pinyin reaches 王涛, not 老王, and no dictionary knows that Ken is
石田健. The declarations bridge them (:func:`alias_bridges`), as the dictionary's words do
(:mod:`memdir.text.bilingual`).

A declaration is a Han name of two to four characters (a Japanese full name may have one space
inside: ``佐々木 美穂``) beside one to three capitalised Latin words, one of them in brackets
right after the other, or, for a Latin name of two words or more, the two side by side; or a
name before a bracket holding the full name in both scripts (``小周（周一鸣 / Zhou Yiming）``:
小周 and 周一鸣 are each declared with Zhou Yiming, and a question naming one of the Han names
reaches the other). Before
a bracket the name is the end of the run of Han characters, after the last word joining words
(的, 和 …) and less the dictionary words it opens with (``我的同事老王 (Wang Tao)`` → 老王). Not a
pair whose Han side is a dictionary word the Latin side does not translate (``文档
（Confluence）``, ``设计（Sakura）``: an annotation, not a name), nor one whose Latin side is a
single English word that says something else (``Stripe（国际卡）``, ``Vault（只读）``;
``石田健（Ken）`` too, which ``Ken Ishida（石田健）`` declares as well; ``佐藤 (Sato)`` is one).

Search uses a declaration towards the form memory writes more often (Wang Tao → 老王, 石田 →
Ken; :func:`memdir.search.keyword.query_profile`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from memdir.text import bilingual, variants

__all__ = ["alias_bridges", "declared", "names_asked"]

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\u3005"
_HAN_NAME = rf"[{_HAN}]{{2,4}}|[{_HAN}]{{1,3}} [{_HAN}]{{1,3}}"
_LATIN_NAME = r"[A-Z][a-z]+(?:[ -][A-Z][a-z]+){0,2}"
_ASKED = re.compile(rf"(?<![A-Za-z0-9]){_LATIN_NAME}(?![A-Za-z0-9])")  # Wang Tao最近: no \b
_OPEN = re.compile("[（(]")
_HAN_BEFORE = re.compile(rf"(?<![{_HAN}])([{_HAN}]+|[{_HAN}]{{1,3}} [{_HAN}]{{1,3}})[ \t]*$")
_BETWEEN = re.compile("[的和跟与及]")  # 我的同事老王, 和老王: what joins words before a name
_LATIN_BEFORE = re.compile(rf"(?<![A-Za-z])({_LATIN_NAME})[ \t]*$")
_LATIN_INSIDE = re.compile(rf"[ \t]*({_LATIN_NAME})[ \t]*[)）]")
_HAN_INSIDE = re.compile(rf"[ \t]*({_HAN_NAME})[ \t]*[)）]")
_BOTH_INSIDE = re.compile(
    # 小周（周一鸣 / Zhou Yiming）, 老王（王涛，Wang Tao）: a full name in both scripts
    rf"[ \t]*([{_HAN}]{{2,4}})[ \t]*[/／,，、]?[ \t]*({_LATIN_NAME})[ \t]*[)）]"
)
_SIDE_BY_SIDE = re.compile(
    # | 何佳 He Jia |, Contact: 佐藤健太 Sato Kenta —: in a table cell or after a colon, two
    # Latin words at least
    rf"(?:^|[|:：])[ \t]*({_HAN_NAME})[ \t]+([A-Z][a-z]+(?:[ -][A-Z][a-z]+){{1,2}})"
    r"[ \t]*(?=$|[|—–,，;；:：(（]|\s-\s)",
    re.MULTILINE,
)


def _pairs(text: str) -> Iterator[tuple[str, str]]:
    """``(han, latin)`` as written, for each declaration shape in ``text`` (a bracket is looked
    for first: most text has none)."""
    for m in _OPEN.finditer(text):
        at, after = m.start(), m.end()
        inside = text[after : after + 2].lstrip()[:1]
        last = text[max(0, at - 2) : at].rstrip()[-1:]
        if not inside or not last:
            continue
        both = _BOTH_INSIDE.match(text, after) if not inside.isascii() else None
        if both and not last.isascii():
            # 小周（周一鸣 / Zhou Yiming）: the full name, and the name before the bracket
            # that the notes write (both declared with the one Latin name)
            yield both.group(1), both.group(2)
            name = _name_before(text, at, both.group(2))
            if name and name != both.group(1):
                yield name, both.group(2)
        elif "A" <= inside <= "Z" and not last.isascii():  # most brackets are neither shape
            latin = _LATIN_INSIDE.match(text, after)
            if latin and (name := _name_before(text, at, latin.group(1))):
                yield name, latin.group(1)  # 老王 (Wang Tao), 同事老王 (Wang Tao)
        elif last.isalpha() and last.isascii() and not inside.isascii():
            latin = _LATIN_BEFORE.search(text, max(0, at - 40), at)
            han = _HAN_INSIDE.match(text, after)
            if latin and han:
                yield han.group(1), latin.group(1)  # Ken Ishida（石田健）
    for m in _SIDE_BY_SIDE.finditer(text):
        yield m.group(1), m.group(2)


def _name_before(text: str, at: int, latin: str) -> str | None:
    """The Han name ending just before the bracket at ``at`` that declares it beside
    ``latin`` (:func:`_name_ending` of the run of Han characters there), if any."""
    han = _HAN_BEFORE.search(text, max(0, at - 24), at)
    return _name_ending(han.group(1), _latin_words(latin)) if han else None


def _name_ending(run: str, words: list[str]) -> str | None:
    """The name of two to four characters that a run of Han characters before a bracket ends
    with: after the last character joining words (我的同事老王 → 同事老王), less the
    dictionary words it opens with that say no word of the Latin name (同事老王 → 老王, but
    佐藤健太 stays: 佐藤 is Sato); a name's own two characters are never cut. None when more
    is left (a sentence, not a name)."""
    if " " in run:  # 佐々木 美穂: a Japanese full name, written as it is
        return run
    tail = _BETWEEN.split(run)[-1]
    if len(tail) >= 2:  # not 和也 (Kazuya) cut to 也
        run = tail
    while len(run) > 2:
        head = next(
            (
                n
                for n in (4, 3, 2)
                if n <= len(run) - 2 and _says_other(variants.fold(run[:n]), words)
            ),
            0,
        )
        if not head:
            break
        run = run[head:]
    return run if len(run) <= 4 else None


def _says_other(word: str, latin_words: list[str]) -> bool:
    """Whether ``word`` is a dictionary word that is no part of a Latin name: it neither
    translates a word of it nor reads as its pinyin (同事 of Wang Tao: colleague, tong shi;
    not 欧阳 of Ouyang Mingyuan)."""
    return bilingual.is_word(word) and not _names(word, latin_words)


def _names(word: str, latin_words: list[str]) -> bool:
    """Whether the dictionary word ``word`` says a Latin name: one of its English words is a
    word of the name (佐藤 → sato), or each of its characters is one the name's pinyin may be
    written with (孙悦 of Sun Yue, which the dictionary knows as somebody else)."""
    if any(w in bilingual.english_for(word) for w in latin_words):
        return True
    sounds = {
        c
        for w in latin_words
        for s in bilingual.syllables(w) or ()
        for c in bilingual.characters_for(s)
    }
    return all(c in sounds for c in word)


def _latin_words(latin: str) -> list[str]:
    """The words of a Latin name, lower-cased (``Sato-Kenta`` → sato, kenta)."""
    return [w.lower() for w in re.split("[ -]", latin)]


def _is_name(han: str, latin: str) -> bool:
    """Whether ``han`` and ``latin`` read as one name written twice (see the module)."""
    words = _latin_words(latin)
    folded = variants.fold(han.replace(" ", ""))
    if len(words) == 1:
        translations = bilingual.chinese_for(words[0])
        if translations and folded not in translations:
            return False  # Stripe, Vault, Excel, Ken: an English word of its own
    if bilingual.is_word(folded):  # 佐藤 → sato is a name; 文档 → document is none
        return _names(folded, words)
    return True


def declared(text: str) -> Iterator[tuple[str, str]]:
    """``(han, latin)`` for each name ``text`` declares in both scripts: the Han side folded
    (:func:`memdir.text.variants.fold`, no space: 佐佐木美穗), the Latin side lower-cased
    (``sasaki miho``)."""
    for han, latin in _pairs(text):
        if _is_name(han, latin):
            yield variants.fold(han.replace(" ", "")), " ".join(_latin_words(latin))


def names_asked(query: str) -> list[str]:
    """The Latin names a query writes (capitalised words, one to three), lower-cased. A name
    that begins a sentence is given without its first word too: that capital may be the
    sentence's (``Did Wang Tao …`` → ``did wang tao`` and ``wang tao``; ``He Jia …`` → ``he
    jia`` and ``jia``)."""
    names: list[str] = []
    for m in _ASKED.finditer(query):
        words = _latin_words(m.group())
        names.append(" ".join(words))
        if len(words) > 1 and _begins_sentence(query, m.start()):
            names.append(" ".join(words[1:]))
    return list(dict.fromkeys(names))


def _begins_sentence(text: str, at: int) -> bool:
    """Whether ``text[at:]`` begins a sentence: nothing but spaces, a bullet or an opening
    quote or bracket since the text's start or the last sentence's end."""
    before = text[:at].rstrip(" \t\"'“‘「『(（*->#")
    return not before or before[-1] in ".!?。？！:：;；\n"


def alias_bridges(
    query: str, terms: Sequence[str], pairs: Iterable[tuple[str, str]]
) -> dict[str, list[str]]:
    """For each term of ``query``, the other writing of a name ``pairs`` declare (from
    :func:`declared`): a Latin name the query writes (the whole name or one of its words: Wang
    Tao, Ken) gives each of its words the Han name's first two characters (老王, 石田, 佐藤: a
    surname, or the name itself); a Han name's first or last two characters among the query's
    terms (石田 of 石田さん, 美穗) give the Latin name's words (ken, ishida)."""
    asked_words = {w for name in names_asked(query) for w in name.split()}
    out: dict[str, list[str]] = {}

    def add(term: str, words: Iterable[str]) -> None:
        if term in terms:
            known = out.setdefault(term, [])
            known.extend(w for w in words if w != term and w not in known)

    held = set(terms)
    pairs = list(dict.fromkeys(pairs))
    for han, latin in pairs:
        words = latin.split()
        for word in words:
            if word in asked_words:  # Wang Tao, or Ken of Ken Ishida
                add(word, [han[:2]])
        for gram in dict.fromkeys((han[:2], han[-2:])):
            if gram in held:  # 石田 of 石田さん, 老王
                # and the other Han names declared with the same Latin one (周一鸣 → 小周)
                add(
                    gram,
                    [
                        *words,
                        *(other[:2] for other, same in pairs if same == latin and other != han),
                    ],
                )
    return {term: words for term, words in out.items() if words}
