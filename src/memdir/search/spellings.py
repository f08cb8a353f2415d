"""The other ways memory may write the words of a question, for keyword search to hold them
through (:func:`memdir.search.keyword.query_profile`): the other language's words (lunch →
午饭; :mod:`memdir.text.bilingual`, the words of software work first:
:mod:`memdir.text.glossary`), the short forms engineers write (:mod:`memdir.text.abbreviations`),
the names the notes declare in both scripts or for a role (:mod:`memdir.text.aliases`,
:mod:`memdir.text.roles`), a code typed another way (``bill421`` for ``BILL-421``), a name in
another case or typed as words (``maxReplicas``, "atlas users daily":
:mod:`memdir.text.casing`), a quarter or half of a year (:mod:`memdir.text.periods`), and an
amount of time or size (``30s``, 30 秒: :mod:`memdir.text.quantities`).

Each offers candidates; :func:`~memdir.search.keyword.query_profile` keeps those memory holds.
Some read memory to decide (the declarations of names and roles, how a run of words or a code
is written there), each from a bounded number of chunks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memdir.index.backend import IndexBackend
from memdir.text import (
    aliases,
    bilingual,
    bridge_term,
    fts_document,
    fts_match,
    fts_query_terms,
    is_cjk_gram,
    roles,
)
from memdir.text import periods as _periods
from memdir.text import quantities as _quantities
from memdir.text.abbreviations import abbreviation_bridges
from memdir.text.casing import camel_words

__all__ = [
    "ALIAS_PROBE",
    "APART_PROBE",
    "ROLE_PROBE",
    "bridges_for",
    "case_spellings",
    "declared_names",
    "periods_as_written",
    "quantities_as_written",
    "respellings",
    "role_bridges",
    "roles_as_named",
    "runs_as_names",
    "snake_terms",
    "spaced_codes",
    "written_apart",
]


def bridges_for(
    index: IndexBackend,
    query: str,
    terms: list[str],
    quoted: frozenset[str],
    glossed: dict[str, list[str]],
    holders: dict[str, list[str]] | None = None,
) -> dict[str, list[str]]:
    """The words of the other language each term may be written as (see
    :mod:`memdir.text.bilingual`; the words of software work first, ``glossed``: 连接池 →
    connection pool, :func:`memdir.text.glossary.glossary_bridges` of the terms, which the
    caller reads too), and the short or long form engineers write for it (prod, production:
    :mod:`memdir.text.abbreviations`), before memory is asked which it holds; names first,
    then those forms. None for the ``quoted`` ones: code, meant as written. ``holders``: the
    people declared in the roles the question names, as :func:`roles_as_named` read them."""

    def held(words: list[str]) -> set[str]:
        return {w for w, df in index.term_dfs(words)[1].items() if df}

    offered = bilingual.word_bridges(query, terms)
    # each source goes before those offered so far: names first, the dictionary's words last
    _put_first(offered, role_bridges(index, query, terms, holders))
    _put_first(offered, glossed)
    _put_first(offered, abbreviation_bridges(query, terms))
    _put_first(offered, bilingual.name_bridges(query, terms, held))
    declared = aliases.alias_bridges(query, terms, declared_names(index, query, terms))
    if declared:
        # a name reaches the form the notes write more often than the question's (Wang Tao →
        # 老王, 石田 → Ken), not the reverse: the owner's Mo, written in every other note, gained
        # nothing from 陈默 but the notes naming him in passing
        dfs = index.term_dfs(list({*declared, *(w for ws in declared.values() for w in ws)}))[1]
        _put_first(
            offered,
            {
                term: [w for w in names if dfs.get(w, 0) > dfs.get(term, 0)]
                for term, names in declared.items()
            },
        )
    return {term: words for term, words in offered.items() if term not in quoted}


def _put_first(offered: dict[str, list[str]], more: dict[str, list[str]]) -> None:
    """Each term's words of ``more`` before those ``offered`` has for it, each once."""
    for term, words in more.items():
        if words:
            offered[term] = list(dict.fromkeys([*words, *offered.get(term, [])]))


def _texts_holding(index: IndexBackend, words: list[str], limit: int) -> list[str]:
    """The text of at most ``limit`` chunks holding any of ``words`` (query terms or bridges),
    unranked: what the checks here read of memory, each from a bounded number of chunks."""
    return [row.chunk.text for row in index.keyword(fts_match(words) or "", limit, ranked=False)]


ROLE_PROBE = 20
"""The most chunks naming a role's words that are read for the names they declare for it
(``Manager: 周岚``): :func:`role_bridges`."""


def _holders(index: IndexBackend, role: str) -> list[str]:
    """The people the first :data:`ROLE_PROBE` chunks holding a word for ``role`` declare in
    it."""
    words = [bridge_term(w) for w in roles.role_words(role)]
    texts = _texts_holding(index, words, ROLE_PROBE)
    names = [n for text in texts for n in roles.declared_roles(text).get(role, ())]
    return list(dict.fromkeys(n if not n.isascii() else n.lower() for n in names))


def roles_as_named(index: IndexBackend, query: str) -> tuple[str, dict[str, list[str]]]:
    """``query`` with a role it names for the asker written as the one person memory declares
    in it, where no note but such a declaration writes the question's word for the role:
    上司对我的沟通方式提了什么意见？ as 周岚对我的沟通方式提了什么意见？ for notes declaring
    ``Manager: 周岚`` and naming her after; the word is no term then, as it would hold the
    declaration alone. Otherwise the role is held through the names (:func:`role_bridges`).
    With it, the people declared in each role it read (:func:`_holders`), for
    :func:`role_bridges` to take rather than read them again."""
    holders: dict[str, list[str]] = {}
    for start, end, role in reversed(roles.asked_role_spans(query)):
        word = bridge_term(query[start:end].lower())
        texts = _texts_holding(index, [word], ROLE_PROBE)
        if any(not roles.declared_roles(text).get(role) for text in texts):
            continue  # the notes write the word: keep it, held through the names too
        names = holders[role] = _holders(index, role)
        if len(names) == 1:
            query = f"{query[:start]} {names[0]} {query[end:]}"
    return query, holders


def role_bridges(
    index: IndexBackend,
    query: str,
    terms: list[str],
    holders: dict[str, list[str]] | None = None,
) -> dict[str, list[str]]:
    """The people the notes declare in a role the question names for the asker (my manager,
    上司, the PM: :mod:`memdir.text.roles`), as bridges of the role's terms: 上司对我的沟通方式
    提了什么意见？ is about 周岚, whom ``MEMORY.md`` declares ``Manager: 周岚 (Zhou Lan)`` and the
    notes name, never as her role. The declarations are read in the first :data:`ROLE_PROBE`
    chunks holding a word for the role, unless ``holders`` has them (:func:`roles_as_named`
    read them); nothing when none declares one."""
    asked = roles.asked_roles(query)
    if not asked:
        return {}
    known = holders or {}
    found = {
        role: known[role] if role in known else _holders(index, role)
        for role in dict.fromkeys(r for _, r in asked)
    }
    bridges: dict[str, list[str]] = {}
    for word, role in asked:
        held = [t for t in fts_query_terms(word) if t in terms] or ([word] if word in terms else [])
        for term in held:
            bridges[term] = list(dict.fromkeys([*bridges.get(term, ()), *found[role]]))
    return {t: ns for t, ns in bridges.items() if ns}


_TWO_WORDS = re.compile(r"(?<![0-9A-Za-z_.\-])([A-Za-z]{2,}) (\d{2,})(?![0-9A-Za-z_:/\-]|\.\d)")


def spaced_codes(query: str, terms: list[str]) -> list[str]:
    """The phrases of a word and a number of two digits or more the query writes with a space
    between (``BILL 421``, ``hnm 147``, ``int 32``; not ``JST 6:00`` or ``v 1.2``), both of
    them terms: a code typed loosely, when memory holds it joined only (the caller asks)."""
    found = []
    for m in _TWO_WORDS.finditer(query):
        phrase = f"{m[1].lower()} {m[2]}"
        if m[1].lower() in terms and m[2] in terms and phrase not in terms:
            found.append(phrase)
    return list(dict.fromkeys(found))


def _written_with(phrase: str, gap: str) -> re.Pattern[str]:
    """The words of ``phrase`` written with ``gap`` between them, each as the query writes it
    or with a short ending (a plural, as FTS5's stemmer matches them: "Stripe charges" for
    "stripe charge")."""
    words = [re.escape(w[:-1] if len(w) > 3 and w.endswith("s") else w) for w in phrase.split(" ")]
    ending = "[a-z]{0,3}"
    return re.compile(rf"(?<![0-9a-z]){f'{ending}{gap}'.join(words)}{ending}(?![0-9a-z])", re.I)


def runs_as_names(
    index: IndexBackend,
    runs: list[list[str]],
    terms: list[str],
    dfs: dict[str, int],
    snakes: Sequence[str] = (),
) -> tuple[list[str], dict[str, list[str]]]:
    """Words the query writes in a row (``runs``: :func:`memdir.text.casing.word_runs`, each
    word a term) that memory writes as one name: ``(phrases, bridges)``; and the ``snakes``
    (:func:`snake_terms`, ``max_replicas``) memory writes glued (``maxReplicas``), held through
    that word. A snake_case name the notes write so is already the index's word too: no bridge
    for it (it counted their ``batch_size`` twice in BM25).

    Only a run memory holds as one word (``dfs`` of ``maxreplicas``: a camelCase
    ``maxReplicas``, or a snake_case ``max_replicas`` or hyphenated name, after which the index
    adds it:
    :func:`memdir.text.fts_document`) is read further, so most queries cost nothing more; the
    chunks holding that word are read, at most :data:`APART_PROBE`, for how they write it.
    Written glued (``maxReplicas``), each word of the run is held through it (a bridge:
    "max replicas" for the notes' ``autoscaling.maxReplicas``, which neither word finds).
    Written joined as a name is, with underscores or with hyphens in a code span or after
    ``#``, ``@`` or ``/`` (:func:`_joined_only`), the run is that name (a phrase, weighed as
    an identifier: "atlas users daily" for the notes' ``atlas_users_daily``, "events raw v2"
    for their ``events_raw_v2``, "relay staging" for their Argo CD app `` `relay-staging` ``,
    "tw hoshimi" for their ``#tw-hoshimi``; as loose words, ``v2`` of every ledger release and
    ``atlas`` of every note about it outranked the one naming the table, the logs of relay on
    staging the app), the longest of each stretch, unless memory writes it as prose too ("user
    id" of notes writing "the user id" stays loose words; so does "go live" of notes writing
    go-live in prose only). No bridge then: a chunk naming ``atlas_users_daily`` holds its
    words already."""
    held = set(terms)
    phrases: list[str] = []
    bridges: dict[str, list[str]] = {}
    for snake in snakes:
        word = snake.replace("_", "")
        if dfs.get(word) and word not in held and _written_glued(index, word):
            bridges.setdefault(snake, []).append(word)
    for run in sorted(runs, key=len, reverse=True):
        word, phrase = "".join(run), " ".join(run)
        if not dfs.get(word) or word in held or phrase in held:
            continue
        if _written_glued(index, word):
            for w in run:
                bridges.setdefault(w, []).append(word)
        elif not any(f" {phrase} " in f" {p} " for p in phrases) and _joined_only(index, phrase):
            phrases.append(phrase)
    return phrases, bridges


def _written_glued(index: IndexBackend, word: str) -> bool:
    """Whether one of the first :data:`APART_PROBE` chunks holding ``word`` writes it as a word
    of its own (``maxReplicas``), not only as a snake_case name's word the index adds."""
    glued = re.compile(rf"(?<![0-9a-z_]){re.escape(word)}(?![0-9a-z_])", re.IGNORECASE)
    return any(glued.search(text) for text in _texts_holding(index, [word], APART_PROBE))


def _joined_only(index: IndexBackend, phrase: str) -> bool:
    """Whether, among the first :data:`APART_PROBE` chunks holding ``phrase``, one writes its
    words joined as a name is, with underscores (``atlas_users_daily``) or with hyphens where
    a name is written (:func:`_written_as_name`: `` `relay-staging` ``, ``#tw-hoshimi``), and
    none as prose does, with spaces between ("error rate", of notes writing ``error-rate``
    too). A word written with hyphens in prose says neither: on-call, go-live."""
    joined, hyphened = _written_with(phrase, "_"), _written_with(phrase, "-")
    apart = _written_with(phrase, r"[ \t]+")
    texts = _texts_holding(index, [phrase], APART_PROBE)
    if any(apart.search(t) for t in texts):
        return False
    return any(
        joined.search(t) or any(_written_as_name(t, m.start()) for m in hyphened.finditer(t))
        for t in texts
    )


def _written_as_name(text: str, at: int) -> bool:
    """Whether the word at ``at`` of ``text`` is written where a name is: in a code span, or
    after ``#``, ``@`` or ``/`` (a channel, a handle, a path)."""
    line = text.rfind("\n", 0, at) + 1
    return text[at - 1 : at] in ("#", "@", "/") or text.count("`", line, at) % 2 == 1


APART_PROBE = 20
"""How many of the chunks holding a word and a number in a row are read, at most, for one
writing them apart (``PG 16``, not ``HNM-147``): :func:`written_apart`."""


def written_apart(index: IndexBackend, phrase: str) -> bool:
    """Whether a note writes the word and the number of ``phrase`` with only a space between
    them (``PG 16``), among the first :data:`APART_PROBE` chunks holding the phrase: a name
    and a number, not a code written joined (``HNM-147``, ``BILL_421``)."""
    word, number = phrase.split(" ")
    apart = re.compile(rf"(?<![0-9a-z]){re.escape(word)}[ \t]+{number}(?![0-9])", re.IGNORECASE)
    return any(apart.search(text) for text in _texts_holding(index, [phrase], APART_PROBE))


_GLUED = re.compile(r"([a-z]{2,})(\d{2,})")
_SPACED = re.compile(r"([a-z]{2,}) (\d{2,})")
_VERSION = re.compile(r"(v?)(\d+(?: \d+){2,3})")  # three parts or more: v2.11 is no v2 … 11


def periods_as_written(index: IndexBackend, query: str) -> str:
    """``query`` with each quarter or half of a year it names that memory never writes as the
    question does written as memory writes it most (:mod:`memdir.text.periods`): 第四季度的 OKR
    as ``Q4 的 OKR`` for notes of ``Q4 OKR``, 上半年 as ``H1``, the fourth quarter as 四季度 for
    notes in Chinese. A writing memory holds is kept (``Q4`` of such notes), and a quarter
    counted from today is none (:mod:`memdir.text.periods`)."""
    return _as_written(
        index,
        query,
        [(p.start, p.end, _periods.writings(p.kind, p.number)) for p in _periods.periods(query)],
    )


def quantities_as_written(index: IndexBackend, query: str) -> tuple[str, dict[str, list[str]]]:
    """``query`` with each amount of time, size or things it names written as one term, and
    the other writings memory holds of it, for the term to be held through
    (:mod:`memdir.text.quantities`): "a 30 second timeout" as ``a 30s timeout``, held through
    the notes' ``30s``, ``30 秒`` and "30 seconds" alike; 十三分钟 as ``13min``, through their
    ``13 分钟``; 16.8万 as ``168k``, through their ``168,000``. An amount memory writes no other
    way than the question is left as written; the number is never converted (90 分钟 is not
    searched as ``1.5h``), nor a count's value (only its scale: thousands, 万, millions)."""
    found = _quantities.quantities(query)
    spans = [(q.start, q.end, _quantities.writings(q.number, q.unit)) for q in found]
    spellings: dict[str, list[str]] = {}
    for q, counted in reversed(list(zip(found, _held_writings(index, query, spans), strict=True))):
        if not any(list(counted.values())[1:]):
            continue  # memory writes it no other way than asked, or not at all
        one = _glued(q)
        spellings[fts_query_terms(one)[0]] = [
            _spaced(w)
            for w in sorted(counted, key=lambda w: -counted[w])  # the most held first
            if counted[w] and fts_document(w) != fts_document(one)
        ]
        query = f"{query[: q.start]} {one} {query[q.end :]}"
    return query, spellings


def _glued(q: _quantities.Quantity) -> str:
    """The one term an amount is searched as: written glued (``30s``, ``13min``, ``168k``,
    ``1.2M``), as a code is."""
    ways = _quantities.writings(q.number, q.unit)
    if q.unit == "n":  # 168k, 1.2M; or 12,345
        return next((w for w in ways if w[-1] in "kM"), ways[0])
    return ways[0]


_DIGIT_THEN_CJK = re.compile(r"(?<=\d)(?=[^\x00-\x7f])")


def _spaced(writing: str) -> str:
    """A writing as a bridge: a space between a number and the CJK after it (``30 秒``), so
    that :func:`memdir.text.term_matcher` holds it written either way (30秒, 30 秒), as FTS5
    does."""
    return _DIGIT_THEN_CJK.sub(" ", writing)


def _as_written(index: IndexBackend, query: str, spans: list[tuple[int, int, list[str]]]) -> str:
    """``query`` with each of its ``spans`` (start, end, the ways notes write what it names)
    that memory never holds as written there replaced by the writing memory holds in the most
    chunks, if it holds any."""
    for (a, b, _), counted in reversed(
        list(zip(spans, _held_writings(index, query, spans), strict=True))
    ):
        own, *others = counted
        if counted[own]:
            continue
        best = max(others, key=counted.__getitem__)
        if counted[best]:
            query = f"{query[:a]} {best} {query[b:]}"
    return query


def _held_writings(
    index: IndexBackend, query: str, spans: list[tuple[int, int, list[str]]]
) -> list[dict[str, int]]:
    """For each of ``spans`` (start, end, the ways notes write what it names): the question's
    writing, then the others, each once as FTS5 reads it (30秒 and 30 秒 are one), with the
    chunks holding it; one count of the index for them all."""
    written = []
    for a, b, ways in spans:
        by_form: dict[str, str] = {}
        for w in [query[a:b], *ways]:
            by_form.setdefault(fts_document(w), w)
        written.append(by_form)
    forms = list(dict.fromkeys(f for by_form in written for f in by_form if f))
    dfs = index.term_dfs(forms)[1] if forms else {}
    return [{w: dfs.get(f, 0) for f, w in by_form.items()} for by_form in written]


def respellings(terms: Iterable[str], quoted: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """The other way each ticket-like term is typed, to be held through when memory writes it
    so: ``bill421`` for the ``BILL-421`` of the notes (``bill 421``), and ``mu 523`` (``MU-523``,
    ``MU 523``) for their ``MU523``, two letters or more, then two digits or more (not ``e5``,
    ``utf8``); and a version of three parts or more with or without its v (``1.13.2`` for the
    notes' ``v1.13.2``, and the other way; of two, FTS5 holds the phrase ``v2 11`` across
    ``events_raw_v2`。- 11:00``). None for the ``quoted`` terms: code, meant as written."""
    found: dict[str, list[str]] = {}
    for term in terms:
        if term in quoted:
            continue
        if m := _GLUED.fullmatch(term):
            found[term] = [f"{m[1]} {m[2]}"]
        elif m := _SPACED.fullmatch(term):
            found[term] = [f"{m[1]}{m[2]}"]
        elif m := _VERSION.fullmatch(term):
            found[term] = [m[2] if m[1] else f"v{term}"]
    return found


def case_spellings(
    query: str, terms: Sequence[str], quoted: frozenset[str] = frozenset()
) -> dict[str, list[str]]:
    """The other case styles a name of the query may be written in (:mod:`memdir.text.casing`),
    to be held through when memory writes it so: ``ackWait`` (one token) through the phrase
    ``ack wait`` of notes writing "ack wait". A snake_case name and words typed apart are read
    by :func:`runs_as_names`.
    None for the ``quoted`` terms: code, meant as written."""
    found: dict[str, list[str]] = {}
    held = set(terms) - quoted
    for word, phrase in camel_words(query):
        if word in held:
            found.setdefault(word, []).append(phrase)
    return found


_SNAKE_PART = re.compile(r"[a-z][a-z0-9]*|\d+")


def snake_terms(terms: Iterable[str], quoted: frozenset[str] = frozenset()) -> list[str]:
    """The snake_case names among ``terms`` (``max_replicas``; not the ``quoted`` ones), each
    of which may be written glued in memory (``maxReplicas``: :func:`runs_as_names`)."""
    return [
        t
        for t in terms
        if "_" in t and t not in quoted and all(_SNAKE_PART.fullmatch(p) for p in t.split("_"))
    ]


ALIAS_PROBE = 20
"""The most chunks a name of the question may be held by for them to be read for the names
they declare in both scripts (:mod:`memdir.text.aliases`), and the most read: a name bridges
only towards the form memory writes more often, so only one memory writes rarely is looked up
(Wang Tao, held by the declaration alone; not Ken, in every other note)."""


def declared_names(index: IndexBackend, query: str, terms: list[str]) -> list[tuple[str, str]]:
    """The names declared in both scripts (``老王 (Wang Tao)``) in the chunks holding a name
    the question writes in Latin letters (two words or more, a name of two also in the other
    order, or one that is no English word: not Tuesday) or one of its Han bigrams, for those
    memory holds in at most :data:`ALIAS_PROBE` chunks."""
    names = [
        n
        for n in aliases.names_asked(query)
        if " " in n or (n in terms and not bilingual.chinese_for(n))  # not Tuesday, Stripe
    ]
    # a name of two words in either order: Tao Wang for the Wang Tao a note declares, as
    # English writes Chinese and Japanese names given name first
    names += [" ".join(reversed(n.split())) for n in names if n.count(" ") == 1]
    grams = [t for t in terms if len(t) == 2 and is_cjk_gram(t)]
    wanted = list(dict.fromkeys([*names, *grams]))
    if not wanted:
        return []
    dfs = index.term_dfs(wanted)[1]
    rare = [t for t in wanted if 0 < dfs.get(t, 0) <= ALIAS_PROBE]
    if not rare:
        return []
    return [
        pair for text in _texts_holding(index, rare, ALIAS_PROBE) for pair in aliases.declared(text)
    ]
