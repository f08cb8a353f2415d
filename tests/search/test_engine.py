"""The search pipeline runs the vector half of a hybrid search beside the keyword half."""

from __future__ import annotations

import multiprocessing
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from memdir.errors import EmbeddingError
from memdir.index import Index, KeywordRow
from memdir.search import engine, keyword
from memdir.search.engine import SearchSettings, run_search
from memdir.search.keyword import (
    PRESENCE_WEIGHT,
    QueryProfile,
    keyword_search,
    query_profile,
    unpooled_scores,
)
from memdir.search.results import SearchResponse
from memdir.text.stopwords import STOP_WORDS

from .helpers import add_note, fill_pool


def _index(tmp_path: Path) -> tuple[Index, dict[str, int]]:
    index = Index.open(tmp_path / "index.sqlite")
    notes = {"a.md": "the heron nests by the river", "b.md": "tea with lemon"}
    return index, {name: add_note(index, name, text) for name, text in notes.items()}


class _Waiting:
    """Answers only once keyword search has started, which a sequential pipeline never allows."""

    def __init__(self, keyword_started: threading.Event, hits: list[tuple[int, float]]) -> None:
        self.keyword_started = keyword_started
        self.hits = hits
        self.thread: threading.Thread | None = None
        self.overlapped = False

    def search(self, query: str, limit: int, assist: object = None) -> list[tuple[int, float]]:
        self.thread = threading.current_thread()
        self.overlapped = self.keyword_started.wait(timeout=10)
        return self.hits


def test_hybrid_runs_vector_search_while_keyword_search_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index, ids = _index(tmp_path)
    started = threading.Event()
    real = engine.keyword_search

    def keyword_search(*args: object, **kwargs: object) -> object:
        started.set()
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "keyword_search", keyword_search)
    vectors = _Waiting(started, [(ids["b.md"], 0.9)])
    response = run_search(
        index, "heron", SearchSettings(min_score=0.0), workspace=tmp_path, vectors=vectors
    )
    assert vectors.overlapped
    assert vectors.thread is not threading.current_thread()
    assert response.mode == "hybrid"
    assert {r.path for r in response.results} == {"a.md", "b.md"}  # both halves merged
    index.close()


class _Failing:
    def search(self, query: str, limit: int, assist: object = None) -> list[tuple[int, float]]:
        raise EmbeddingError("endpoint said 503")


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_a_failing_vector_half_degrades_to_keyword(tmp_path: Path, mode: str) -> None:
    index, _ = _index(tmp_path)
    response = run_search(
        index,
        "heron",
        SearchSettings(mode=mode, min_score=0.0),
        workspace=tmp_path,
        vectors=_Failing(),
    )
    assert response.mode == "keyword"
    assert [r.path for r in response.results] == ["a.md"]
    assert any("503" in w for w in response.warnings)
    index.close()


class _Fixed:
    def __init__(self, hits: list[tuple[int, float]]) -> None:
        self.hits = hits

    def search(self, query: str, limit: int, assist: object = None) -> list[tuple[int, float]]:
        return self.hits


def test_a_query_memory_shares_no_words_with_is_judged_by_meaning(tmp_path: Path) -> None:
    """Asked in another language, a note has no keyword evidence at all: with adaptive weights
    its hybrid score is its vector score, so a clear semantic match clears min_score, where a
    fixed 0.3 vector weight would cap it at 0.3 × 0.6 = 0.18 and drop it."""
    index, ids = _index(tmp_path)
    vectors = _Fixed([(ids["a.md"], 0.6)])
    # without the dictionary's bridges (苍鹭 → heron, 筑巢 → nest) no word is shared
    settings = SearchSettings(vector_weight=0.3, text_weight=0.7, min_score=0.35, bridges=False)
    adaptive = run_search(index, "苍鹭在哪里筑巢", settings, workspace=tmp_path, vectors=vectors)
    assert [(r.path, round(r.score, 6)) for r in adaptive.results] == [("a.md", 0.6)]
    fixed = run_search(
        index,
        "苍鹭在哪里筑巢",
        settings.replace(adaptive_weights=False),
        workspace=tmp_path,
        vectors=vectors,
    )
    assert fixed.results == ()
    index.close()


def test_bridges_give_a_question_in_another_language_keyword_evidence(tmp_path: Path) -> None:
    index, ids = _index(tmp_path)
    vectors = _Fixed([(ids["a.md"], 0.6)])
    settings = SearchSettings(vector_weight=0.3, text_weight=0.7, min_score=0.35)
    response = run_search(index, "苍鹭在哪里筑巢", settings, workspace=tmp_path, vectors=vectors)
    (hit,) = response.results
    assert hit.path == "a.md"
    # 苍鹭 → heron and 筑巢 → nest: the note holds every term (the presence half of the score;
    # in a memory of two notes BM25's IDF is about 0, so the other half is too)
    assert hit.text_score == pytest.approx(0.5)  # without them, none: the test above
    index.close()


def test_keyword_weight_follows_the_querys_coverage(tmp_path: Path) -> None:
    index, ids = _index(tmp_path)
    vectors = _Fixed([(ids["a.md"], 0.5), (ids["b.md"], 0.5)])
    settings = SearchSettings(vector_weight=0.3, text_weight=0.7, min_score=0.0)
    response = run_search(index, "heron river", settings, workspace=tmp_path, vectors=vectors)
    hit = next(r for r in response.results if r.path == "a.md")
    assert hit.text_score is not None and hit.vector_score == 0.5
    coverage = hit.text_score  # the best (only) keyword match covers this share of the query
    wt = 0.7 * coverage / (0.3 + 0.7 * coverage)
    assert hit.score == pytest.approx((1 - wt) * 0.5 + wt * hit.text_score)
    fixed = run_search(
        index,
        "heron river",
        settings.replace(adaptive_weights=False),
        workspace=tmp_path,
        vectors=vectors,
    )
    hit = next(r for r in fixed.results if r.path == "a.md")
    assert hit.score == pytest.approx(0.3 * 0.5 + 0.7 * hit.text_score)
    index.close()


def _search_in_child(path: Path, hit: int, out: Any) -> None:
    index = Index.open(path / "index.sqlite")
    response = run_search(
        index, "heron", SearchSettings(min_score=0.0), workspace=path, vectors=_Fixed([(hit, 0.9)])
    )
    out.put(sorted(r.path for r in response.results))
    index.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_a_forked_child_can_search_after_its_parent_did(tmp_path: Path) -> None:
    """The worker threads of a hybrid search do not survive fork(); a child that inherited the
    parent's pool would queue its vector half forever."""
    index, ids = _index(tmp_path)
    run_search(index, "heron", SearchSettings(), workspace=tmp_path, vectors=_Fixed([]))
    index.close()
    fill_pool(engine._VECTOR_POOL.get())
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_search_in_child, args=(tmp_path, ids["b.md"], out))
    child.start()
    child.join(timeout=30)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child's hybrid search hung")
    assert out.get(timeout=5) == ["a.md", "b.md"]


def test_in_a_bilingual_memory_an_exact_match_beats_a_close_meaning_in_the_other_script(
    tmp_path: Path,
) -> None:
    """Real notes mix scripts, so no chunk is judged by meaning alone for being in the other
    script: the English note that holds the error code outranks the Chinese one whose vector
    is close (it used to be weighted by the Chinese notes' own keyword coverage, ~0, and won
    on its cosine: issue #11's first failure class)."""
    index = Index.open(tmp_path / "index.sqlite")
    english = add_note(index, "en.md", "ERR_X 0x80AB: the broker refused the consumer's ack.")
    chinese = add_note(index, "zh.md", "消费者确认被 broker 拒绝时要查日志。")
    for i, other in enumerate(["tea with lemon", "the mill opens at nine", "a river trip"]):
        add_note(index, f"other{i}.md", other)
    vectors = _Fixed([(chinese, 0.9), (english, 0.3)])
    settings = SearchSettings(vector_weight=0.3, text_weight=0.7, min_score=0.0)
    response = run_search(index, "ERR_X 0x80AB", settings, workspace=tmp_path, vectors=vectors)
    assert [r.path for r in response.results][:2] == ["en.md", "zh.md"]
    index.close()


def test_a_question_naming_what_memory_lacks_is_not_vouched_for_by_meaning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory holds "ledger" but never "paypal": even a very close vector match (0.8) is
    scaled down by the share of the question memory holds nowhere, under the floor; at half
    the penalty (the default before issue #11's bridges) it was an answer. (The memory is
    counted as one that writes enough English for a lacked word to tell: see the next test.)"""
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)
    index = Index.open(tmp_path / "index.sqlite")
    note = add_note(index, "a.md", "ledger moved its card payments to Stripe")
    for i, other in enumerate(["tea with lemon", "the mill opens at nine", "a river trip"]):
        add_note(index, f"other{i}.md", other)
    settings = SearchSettings(min_score=0.35)

    def paths(query: str, similarity: float) -> list[str]:
        vectors = _Fixed([(note, similarity)])
        found = run_search(index, query, settings, workspace=tmp_path, vectors=vectors)
        return [r.path for r in found.results]

    assert paths("ledger paypal", 0.6) == paths("ledger paypal", 0.8) == []
    assert paths("ledger stripe", 0.6) == ["a.md"]
    monkeypatch.setattr(engine, "ABSENT_PENALTY", 0.5)
    assert paths("ledger paypal", 0.8) == ["a.md"]
    index.close()


def test_a_korean_question_is_answered_by_the_note_in_its_own_words(tmp_path: Path) -> None:
    """ "누가 확정해?" asks who settles it: 누가 is a question word and 확정해 the verb the note
    writes as 확정하기로. Before, both were words memory lacks (`No note mentions: 누가, 확정해`),
    and counted against the note."""
    index = Index.open(tmp_path / "index.sqlite")
    for n in range(30):  # a memory of more than a few notes, where a lacked word tells
        add_note(index, f"memory/2026-11-{n % 28 + 1:02d}-{n}.md", f"스탠드업 {n}: 특이사항 없음.")
    add_note(
        index,
        "memory/2026-12-04.md",
        "김민수 팀장이 다음 주 금요일까지 배포 일정을 확정하기로 했다.",
    )
    found = run_search(
        index,
        "배포 일정은 누가 확정해?",
        SearchSettings(mode="keyword", min_score=0.35),
        workspace=tmp_path,
        stopwords=STOP_WORDS,
    )
    assert [r.path for r in found.results] == ["memory/2026-12-04.md"]
    assert found.not_in_memory == ()
    assert found.results[0].score > 0.8  # .72 while 누가 and 확정해 were lacked
    index.close()


def test_a_new_memory_answers_though_it_lacks_an_ordinary_word_of_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory of a few notes lacks most words of any question, so lacking one says little
    (``keyword.TELLING_LINES``): the note on the Redis resize answers "which redis instance
    are we on now?" though no note says "instance", and the search still names the word memory
    lacks. Before, the lack weighed as in a memory of hundreds of notes and "No matches." was
    printed (bench/agentmem/small.py: two fifths of the true matches lost in memories this
    small)."""
    index = Index.open(tmp_path / "index.sqlite")
    note = add_note(index, "a.md", "Rolled back the Redis resize: now on r6g.large.")
    add_note(index, "b.md", "Redis memory alert, resized to r6g.xlarge.")
    add_note(index, "c.md", "Moved the deploy freeze to Friday 18:00.")
    settings = SearchSettings(min_score=0.35)
    query = "which redis instance are we on now?"
    vectors = _Fixed([(note, 0.8)])
    found = run_search(
        index, query, settings, workspace=tmp_path, vectors=vectors, stopwords=STOP_WORDS
    )
    assert [r.path for r in found.results][:1] == ["a.md"]
    assert found.not_in_memory == ("instance",)
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)  # counted as in a large memory
    assert (
        run_search(
            index, query, settings, workspace=tmp_path, vectors=vectors, stopwords=STOP_WORDS
        ).results
        == ()
    )
    index.close()


@pytest.mark.parametrize("vectors", [None, _Failing()], ids=["keyword", "degraded"])
def test_keyword_search_alone_answers_a_new_memory_though_it_lacks_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vectors: _Failing | None
) -> None:
    """Keyword search alone, asked for or fallen back to when the embedder fails, counts a
    word memory lacks as much as its lack tells (``QueryProfile.alone``), as hybrid's
    absent-term penalty does: in a memory of three notes, the note on the Redis resize
    answers "what instance class is redis on after rolling back the upgrade?". Counted in full,
    as in a memory of hundreds of notes, the three words it lacks left it under the floor (bench/agentmem/small.py --mode
    keyword: 46 of 80 true matches kept in memories of the answer's notes alone, 59 with it)."""
    index = Index.open(tmp_path / "index.sqlite")
    add_note(index, "a.md", "Rolled back the Redis resize: now on r6g.large.")
    add_note(index, "b.md", "Redis memory alert, resized to r6g.xlarge.")
    add_note(index, "c.md", "Moved the deploy freeze to Friday 18:00.")
    mode = "keyword" if vectors is None else "hybrid"
    settings = SearchSettings(mode=mode, min_score=0.35)
    query = "what instance class is redis on after rolling back the upgrade?"

    def search() -> SearchResponse:
        return run_search(
            index, query, settings, workspace=tmp_path, vectors=vectors, stopwords=STOP_WORDS
        )

    asked = []
    real = index.keyword
    monkeypatch.setattr(index, "keyword", lambda *a, **kw: asked.append(a) or real(*a, **kw))
    found = search()
    assert found.mode == "keyword"
    assert [r.path for r in found.results][:1] == ["a.md"]
    assert found.not_in_memory == ("instance", "class", "upgrade")
    assert len(asked) == 1  # scored again when degraded, from the candidates already read
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)  # counted as in a large memory
    assert search().results == ()
    index.close()


def test_hybrid_keeps_the_full_mass_in_its_keyword_half(tmp_path: Path) -> None:
    """Only keyword search alone scores by the told mass: the keyword half of hybrid search
    keeps the mass its fusion weights were set with, and judges the lacked word through the
    absent-term penalty instead."""
    index = Index.open(tmp_path / "index.sqlite")
    add_note(index, "a.md", "Rolled back the Redis resize: now on r6g.large.")
    add_note(index, "b.md", "Moved the deploy freeze to Friday 18:00.")
    profile = query_profile(index, "which redis instance?", stopwords=STOP_WORDS)
    assert profile is not None and profile.absent == ("instance",)
    assert profile.told_mass is not None and profile.told_mass < profile.mass
    assert profile.alone().mass == profile.told_mass
    assert profile.alone().terms == profile.terms
    held = query_profile(index, "which redis resize?", stopwords=STOP_WORDS)
    assert held is not None and held.alone() is held  # nothing lacked: the same profile
    index.close()


class _Recording:
    """A vector half that records the query it was given."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def search(self, query: str, limit: int, assist: object = None) -> list[tuple[int, float]]:
        self.queries.append(query)
        return []


def test_the_vector_half_also_seeks_the_words_of_the_other_language(tmp_path: Path) -> None:
    """Hybrid and vector search embed the query followed by the bridges memory holds for its terms, so
    that an English question is also sought in the Chinese its notes are written in."""
    index = Index.open(tmp_path / "index.sqlite")
    add_note(index, "a.md", "午饭楼下兰州拉面")
    add_note(index, "b.md", "the mill opens at nine")
    vectors = _Recording()
    run_search(index, "lunch plans", SearchSettings(), workspace=tmp_path, vectors=vectors)
    run_search(index, "mill hours", SearchSettings(), workspace=tmp_path, vectors=vectors)
    off = SearchSettings(bridges=False)
    run_search(index, "lunch plans", off, workspace=tmp_path, vectors=vectors)
    vector_only = SearchSettings(mode="vector")
    run_search(index, "lunch plans", vector_only, workspace=tmp_path, vectors=vectors)
    assert vectors.queries == [
        "lunch plans (午饭)",
        "mill hours",
        "lunch plans",
        "lunch plans (午饭)",
    ]
    index.close()


def test_vector_query_appends_each_bridge_once() -> None:
    assert engine.vector_query("lunch", None) == "lunch"
    with_bridges = replace(_PROFILE, bridges={"lunch": ["午饭", "午餐"], "meal": ["午饭"]})
    assert engine.vector_query("lunch meal", with_bridges) == "lunch meal (午饭 午餐)"
    assert engine.vector_query("lunch meal", _PROFILE) == "lunch meal"


_PROFILE = QueryProfile(
    match='"lunch"',
    terms=["lunch"],
    weights={"lunch": 1.0},
    mass=1.0,
    bm25_mass=1.0,
    holds_identifier=False,
    lacks_a_name=False,
    bridges={},
    absent_share=0.0,
)


def test_a_long_query_is_cut_at_a_space_with_a_warning(tmp_path: Path) -> None:
    index, _ = _index(tmp_path)
    filler = " ".join(f"w{i}" for i in range(8000))  # about 47,000 characters
    query = "heron " + filler[: engine.MAX_QUERY_CHARS] + " lemon " + filler
    vectors = _Recording()
    response = run_search(
        index, query, SearchSettings(min_score=0.0), workspace=tmp_path, vectors=vectors
    )
    assert len(response.query) <= engine.MAX_QUERY_CHARS
    assert query.startswith(response.query)
    assert query[len(response.query)] == " "  # not cut inside a word
    assert vectors.queries == [response.query]  # both halves searched the shortened query
    assert [r.path for r in response.results] == ["a.md"]  # "lemon" came after the cut
    (warning,) = response.warnings
    assert f"query is {len(query):,} characters long" in warning
    assert f"limit of {engine.MAX_QUERY_CHARS:,}" in warning
    index.close()


def test_a_query_at_the_limit_is_searched_whole(tmp_path: Path) -> None:
    index, _ = _index(tmp_path)
    query = ("x" * (engine.MAX_QUERY_CHARS - 6)) + " lemon"
    response = run_search(
        index, query, SearchSettings(mode="keyword", min_score=0.0), workspace=tmp_path
    )
    assert response.query == query
    assert response.warnings == ()
    assert [r.path for r in response.results] == ["b.md"]
    index.close()


def test_a_query_with_lone_surrogates_is_searched(tmp_path: Path) -> None:
    index, _ = _index(tmp_path)
    response = run_search(
        index, "heron\ud800", SearchSettings(mode="keyword", min_score=0.0), workspace=tmp_path
    )
    assert response.query == "heron\ufffd"
    assert [r.path for r in response.results] == ["a.md"]
    index.close()


def test_the_best_result_decides_whether_there_is_an_answer(tmp_path: Path) -> None:
    """``min_score`` is the bar the best result must clear; once it does, the others are kept
    down to COMPANION_SHARE of it, and when it does not, nothing is returned."""
    index = Index.open(tmp_path / "index.sqlite")
    ids = [add_note(index, f"{name}.md", text) for name, text in [
        ("a", "the heron nests by the river"), ("b", "tea with lemon"), ("c", "a mill")
    ]]  # fmt: skip
    settings = SearchSettings(min_score=0.35, bridges=False)
    half = engine.COMPANION_SHARE * 0.35
    query = "苍鹭在哪里筑巢"  # no word in common: the hybrid scores are the vector scores
    answered = run_search(
        index,
        query,
        settings,
        workspace=tmp_path,
        vectors=_Fixed([(ids[0], 0.6), (ids[1], half + 0.01), (ids[2], half - 0.01)]),
    )
    assert [r.path for r in answered.results] == ["a.md", "b.md"]
    unanswered = run_search(
        index, query, settings, workspace=tmp_path, vectors=_Fixed([(ids[0], 0.34), (ids[1], 0.3)])
    )
    assert unanswered.results == ()
    index.close()


def test_keyword_search_answers_at_half_the_floor_when_memory_holds_every_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A keyword score is the share of the question's weight one note holds, so a question of
    many words that each note holds a few of scores under the floor however much memory knows
    of it. What tells memory cannot answer is a word it holds nowhere: when it lacks none, the
    best result need only reach HELD_FLOOR_SHARE of ``min_score`` (and ``floor_share`` says
    so). Not in hybrid search, whose absent-term penalty and meaning judge that."""
    index = Index.open(tmp_path / "index.sqlite")
    notes = {
        "a.md": "Scaled the consumers to six pods to drain the backlog.",
        "b.md": "Outage review on Friday.",
        "c.md": "The gateway alert fired twice.",
        "d.md": "Thresholds raised for the ledger.",
        "e.md": "Staging was quiet all week.",
        "f.md": "Lunch at the noodle place near the office.",
    }
    ids = {path: add_note(index, path, text) for path, text in notes.items()}
    asked = "how many pods drained the backlog after the outage review, when gateway thresholds"

    def search(query: str, min_score: float = 0.35, **kw: Any) -> SearchResponse:
        settings = SearchSettings(mode=kw.pop("mode", "keyword"), min_score=min_score)
        return run_search(index, query, settings, workspace=tmp_path, stopwords=STOP_WORDS, **kw)

    held = f"{asked} were raised on staging?"
    best = search(held, min_score=0).best_score
    assert engine.HELD_FLOOR_SHARE * 0.35 <= best < 0.35
    found = search(held)
    assert (found.floor_share, found.not_in_memory) == (engine.HELD_FLOOR_SHARE, ())
    assert [r.path for r in found.results][:1] == ["a.md"]
    # a word memory holds nowhere: the whole floor, and nothing reaches it
    lacking = search(f"{asked} were raised on kubernetes?")
    assert (lacking.floor_share, lacking.not_in_memory, lacking.results) == (
        1.0,
        ("kubernetes",),
        (),
    )
    # a quoted span no note writes as written counts as lacked too
    quoted = search(f"{asked} were raised on `staging gateway`?")
    assert (quoted.floor_share, quoted.results) == (1.0, ())
    hybrid = search(held, mode="hybrid", vectors=_Fixed([(i, 0.1) for i in ids.values()]))
    assert (hybrid.mode, hybrid.floor_share) == ("hybrid", 1.0)
    # behind a filter, a word only a hidden note holds is lacked: the whole floor
    hidden = search(held, path_filter=lambda path, source: path != "e.md")
    assert (hidden.floor_share, hidden.not_in_memory, hidden.results) == (1.0, ("staging",), ())
    monkeypatch.setattr(engine, "HELD_FLOOR_SHARE", 1.0)
    assert search(held).results == ()
    index.close()


class _Scoring(_Fixed):
    """A vector half that can also score chunks it did not return, for the query it searched."""

    def __init__(self, hits: list[tuple[int, float]], others: dict[int, float]) -> None:
        super().__init__(hits)
        self.others = others
        self.asked: list[tuple[str, list[int]]] = []

    def scores(self, query: str, chunk_ids: list[int]) -> list[tuple[int, float]]:
        self.asked.append((query, list(chunk_ids)))
        return [(cid, self.others[cid]) for cid in chunk_ids if cid in self.others]


def test_keyword_candidates_the_vector_half_missed_get_their_vector_score(
    tmp_path: Path,
) -> None:
    """A keyword match outside the nearest chunks is judged by its true similarity, not as if
    it had none; a vector half without ``scores`` leaves it keyword-only."""
    index, ids = _index(tmp_path)
    settings = SearchSettings(min_score=0.0)
    vectors = _Scoring([(ids["b.md"], 0.9)], {ids["a.md"]: 0.5})
    response = run_search(index, "heron", settings, workspace=tmp_path, vectors=vectors)
    assert vectors.asked == [("heron", [ids["a.md"]])]  # only what the vector half missed
    hit = next(r for r in response.results if r.path == "a.md")
    assert hit.vector_score == 0.5 and hit.text_score is not None
    plain = run_search(
        index, "heron", settings, workspace=tmp_path, vectors=_Fixed([(ids["b.md"], 0.9)])
    )
    bare = next(r for r in plain.results if r.path == "a.md")
    assert bare.vector_score is None
    assert hit.score > bare.score
    index.close()


def test_a_word_memory_lacks_does_not_sink_the_one_note_naming_the_ticket(tmp_path: Path) -> None:
    """``OPS-4411 的进展`` (its progress) against a memory of one note that names OPS-4411 but
    not 进展: the note is the answer. In a memory this small every held term has an IDF near 0,
    so the share of the query's weight memory lacks is about 1; a penalty of 1.0 on that share
    scored the note 0 and printed "No matches." (README quick start, a first note)."""
    index = Index.open(tmp_path / "index.sqlite")
    note = add_note(
        index, "MEMORY.md", "- 2026-11-30 我们把数据库迁移到 PostgreSQL 16，工单 OPS-4411"
    )
    response = run_search(
        index,
        "OPS-4411 的进展",
        SearchSettings(min_score=0.35),
        workspace=tmp_path,
        vectors=_Fixed([(note, 0.8)]),
    )
    assert [r.path for r in response.results] == ["MEMORY.md"]
    index.close()


def test_a_question_about_a_name_memory_never_uses_is_not_answered(tmp_path: Path) -> None:
    """PayPal is a name (capitalised mid-sentence) that an English memory holds nowhere: the
    question is about it, so a close match on its other words is no answer. Unnamed, the same
    words are just a word memory lacks."""
    index = Index.open(tmp_path / "index.sqlite")
    note = add_note(index, "a.md", "ledger moved its card payments to Stripe, the payment provider")
    for i, other in enumerate(["tea with lemon", "the mill opens at nine", "a river trip"]):
        add_note(index, f"other{i}.md", other)
    vectors = _Fixed([(note, 0.8)])
    settings = SearchSettings(min_score=0.35)

    def answered(query: str) -> bool:
        found = run_search(index, query, settings, workspace=tmp_path, vectors=vectors)
        return bool(found.results)

    assert not answered("Did ledger move card payments to PayPal?")
    assert answered("Did ledger move card payments to paypal?")
    assert answered("Did ledger move card payments to Stripe?")
    index.close()


class _Nearest:
    """A vector half that finds only ``near`` and knows the similarity of every chunk."""

    def __init__(self, near: list[tuple[int, float]], every: dict[int, float]) -> None:
        self.near, self.every = near, every
        self.asked: list[int] = []

    def search(self, query: str, limit: int, assist: object = None) -> list[tuple[int, float]]:
        return list(self.near)

    def scores(self, query: str, chunk_ids: list[int]) -> list[tuple[int, float]]:
        self.asked.extend(chunk_ids)
        return [(cid, self.every[cid]) for cid in chunk_ids if cid in self.every]


def test_vector_search_judges_the_chunks_of_the_day_a_question_names(tmp_path: Path) -> None:
    """To an embedder "Aug 3" is noise: the nearest chunks are any day's. Vector search adds
    the chunks dated the day the question names, judged by their true similarity, and the
    others count a quarter (:data:`engine.OTHER_DAY_FACTOR`); a day no chunk is dated changes
    nothing."""
    index = Index.open(tmp_path / "index.sqlite")
    that_day = add_note(index, "memory/2026-08-03.md", "lunch with Wang, ramen", date="2026-08-03")
    other = add_note(index, "memory/2026-09-14.md", "lunch with Wang, hotpot", date="2026-09-14")
    vectors = _Nearest([(other, 0.8)], {that_day: 0.7, other: 0.8})
    settings = SearchSettings(mode="vector", min_score=0.0)

    def found(query: str) -> list[tuple[str, float]]:
        response = run_search(index, query, settings, workspace=tmp_path, vectors=vectors)
        return [(r.path, round(r.score, 6)) for r in response.results]

    assert found("who did I have lunch with on Aug 3?") == [
        ("memory/2026-08-03.md", 0.7),
        ("memory/2026-09-14.md", round(0.8 * engine.OTHER_DAY_FACTOR, 6)),
    ]
    assert vectors.asked == [that_day]
    assert found("8月3日和谁吃的午饭？")[0][0] == "memory/2026-08-03.md"
    assert found("8월 3일 점심은 누구랑 먹었어?")[0][0] == "memory/2026-08-03.md"
    assert found("who did I have lunch with on Aug 4?")[0] == ("memory/2026-09-14.md", 0.8)
    index.close()


def test_vector_search_also_judges_the_chunks_naming_an_identifier(tmp_path: Path) -> None:
    """An invoice number means nothing to an embedder: the note naming it can lie far from the
    question in meaning and miss the nearest chunks. Vector search adds the chunks naming an
    identifier of the question, judged by their true similarity."""
    index = Index.open(tmp_path / "index.sqlite")
    invoice = add_note(index, "a.md", "INV-2026-08-00417 was issued twice to the Lyon tenant")
    other = add_note(index, "b.md", "invoices are issued on the first working day")
    vectors = _Nearest([(other, 0.8)], {invoice: 0.6, other: 0.8})
    settings = SearchSettings(mode="vector", min_score=0.0)
    response = run_search(
        index, "What is INV-2026-08-00417?", settings, workspace=tmp_path, vectors=vectors
    )
    # asked what the invoice is, the note naming it comes first; the other one is cut down,
    # as a result naming no identifier of the question and as one not naming the one asked of
    assert [r.path for r in response.results] == ["a.md", "b.md"]
    assert vectors.asked == [invoice]
    assert response.results[1].score == pytest.approx(
        0.8 * engine.UNNAMED_FACTOR * engine.UNNAMED_CODE_FACTOR
    )
    # a question with no identifier asks for nothing more
    vectors.asked.clear()
    plain = run_search(
        index, "when are invoices issued", settings, workspace=tmp_path, vectors=vectors
    )
    assert [r.path for r in plain.results] == ["b.md"] and vectors.asked == []


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_a_result_naming_no_code_of_the_question_counts_half(tmp_path: Path, mode: str) -> None:
    """To an embedder a ticket number is noise: the status table of another project lay
    nearer "HNM-147 现在是什么状态？" than the one naming the ticket. Results naming no code
    of the question that memory holds count half; with a code memory lacks, or none, nothing
    changes."""
    index = Index.open(tmp_path / "index.sqlite")
    named = add_note(index, "hanami.md", "| HNM-147 | pickup time change | in review |")
    other = add_note(index, "qingcheng.md", "| QC-27 | 会员页 | 状态 已交 |")
    vectors = _Nearest([(other, 0.8), (named, 0.6)], {named: 0.6, other: 0.8})
    settings = SearchSettings(mode=mode, min_score=0.0)

    def ranked(query: str) -> list[tuple[str, float]]:
        found = run_search(index, query, settings, workspace=tmp_path, vectors=vectors)
        return [(r.path, r.vector_score or 0.0) for r in found.results]

    assert [p for p, _ in ranked("HNM-147 现在是什么状态？")] == ["hanami.md", "qingcheng.md"]
    unnamed = run_search(
        index, "HNM-147 现在是什么状态？", settings, workspace=tmp_path, vectors=vectors
    ).results[1]
    assert unnamed.vector_score == pytest.approx(0.8)  # the score is halved, not the similarity
    if mode == "vector":  # an identifier memory lacks, or none: ranked by meaning as before
        assert ranked("what is the status now")[0][0] == "qingcheng.md"
        assert ranked("HNM-999 现在是什么状态？")[0][0] == "qingcheng.md"
    # keyword search too: a question's common words (状态) are no answer without the code
    keyword = run_search(
        index, "HNM-147 状态", SearchSettings(mode="keyword", min_score=0.0), workspace=tmp_path
    )
    assert [r.path for r in keyword.results] == ["hanami.md", "qingcheng.md"]
    unnamed = keyword.results[1]
    assert unnamed.score == pytest.approx(engine.UNNAMED_CODE_FACTOR * unnamed.text_score)
    index.close()


def test_a_search_names_the_words_of_the_query_no_note_holds(tmp_path: Path) -> None:
    """``not_in_memory`` tells the asker (an agent, a person) what memory never mentions, as
    the query writes it, in every mode and whether or not there are results: PayPal and the
    unknown ticket OPS-9999, and the Chinese word 进展; not a word held in the other language
    (lunch, through 午饭), not the question's function words, not a bigram that is only the
    edge between two words (上聊)."""
    index = Index.open(tmp_path / "index.sqlite")
    note = add_note(index, "a.md", "ledger moved its card payments to Stripe. OPS-1234 closed.")
    add_note(index, "b.md", "午饭楼下兰州拉面。和老王聊了上线计划。")
    add_note(index, "c.md", "the mill opens at nine")

    def absent(query: str, mode: str = "hybrid", bridges: bool = True) -> tuple[str, ...]:
        settings = SearchSettings(mode=mode, min_score=0.0, bridges=bridges)
        vectors = None if mode == "keyword" else _Fixed([(note, 0.5)])
        found = run_search(
            index, query, settings, workspace=tmp_path, vectors=vectors, stopwords=STOP_WORDS
        )
        return found.not_in_memory

    for mode in ("hybrid", "keyword", "vector"):
        assert absent("When did ledger move card payments to PayPal?", mode) == ("PayPal",)
        assert absent("lunch with Stripe", mode, bridges=False) == ("lunch",)
    assert absent("OPS-9999 的进展是什么？") == ("OPS-9999", "进展")
    assert absent("lunch with Stripe") == ()
    assert absent("和老王上聊了什么？") == ()
    assert absent("When did ledger move card payments to Stripe?") == ()
    index.close()


def test_behind_a_filter_a_word_is_held_only_by_a_note_the_caller_may_see(tmp_path: Path) -> None:
    """With a path filter, ``not_in_memory`` names the words no visible note holds: alpha, which
    only hidden notes hold, but not deploy, which one visible note holds though the hidden
    notes crowd it out of the keyword candidates."""
    index = Index.open(tmp_path / "index.sqlite")
    with index.transaction() as conn:
        for i in range(20):
            add_note(index, f"hidden/{i}.md", "alpha deploy, alpha deploy", conn=conn)
        add_note(index, "shared/mill.md", "the deploy notes of the mill", conn=conn)

    def absent(path_filter: Any) -> tuple[str, ...]:
        settings = SearchSettings(mode="keyword", max_results=1, min_score=0.0)
        found = run_search(
            index,
            "alpha deploy",
            settings,
            workspace=tmp_path,
            stopwords=STOP_WORDS,
            path_filter=path_filter,
        )
        return found.not_in_memory

    assert absent(None) == ()
    assert absent(lambda path, source: not path.startswith("hidden/")) == ("alpha",)
    assert absent(lambda path, source: False) == ("alpha", "deploy")
    index.close()


def test_a_vector_hit_outside_the_keyword_pool_counts_the_words_it_holds(tmp_path: Path) -> None:
    """The keyword pool (``max_results`` × ``candidate_multiplier`` chunks by BM25) may leave
    out a long note naming the heron once that the vector half finds: it is scored as holding
    the question's word (no BM25 share), not as if it held none, so its hybrid score does not
    hang on the pool's size; a note holding no word of the question gets no keyword score."""
    index = Index.open(tmp_path / "index.sqlite")
    pooled = add_note(index, "a.md", "heron nests")
    far = add_note(
        index, "b.md", "by the lake all morning a grey heron waits in the shallow cold water"
    )
    none = add_note(index, "c.md", "tea with lemon")
    profile = query_profile(index, "heron", stopwords=STOP_WORDS)
    assert profile is not None
    rows = index.chunks_by_ids([pooled, far, none])
    bodies: dict[int, str] = {}
    scores = engine._unpooled(profile, [(pooled, 0.9)], [(far, 0.9), (none, 0.8)], rows, bodies)
    assert scores == [(far, PRESENCE_WEIGHT)]  # holds the one term: the whole presence share
    assert set(bodies) == {far, none}
    assert unpooled_scores(profile, [rows[none]]) == {none: 0.0}
    # what the far note would score inside the pool: the same share, and BM25's on top
    inside = dict((row.chunk.id, score) for row, score in keyword_search(index, "heron", 10))
    assert inside[far] > PRESENCE_WEIGHT
    index.close()


def test_fewer_results_are_the_first_of_more(tmp_path: Path) -> None:
    """Asking for 3 results gives the first 3 of 10: candidates are gathered as for at least
    :data:`engine.POOL_RESULTS` results. Before, a pool sized by ``max_results`` left out
    chunks that BM25 ranks low but that hold more of the question (a long note holding every
    word), so the first results changed with the number asked for."""
    import random

    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    filler = [f"f{i}" for i in range(400)]
    index = Index.open(tmp_path / "index.sqlite")
    with index.transaction() as conn:
        for n in range(120):
            size = rng.choice([3, 5, 8, 60, 120])
            text = " ".join(
                rng.choice(words if rng.random() < 0.3 else filler) for _ in range(size)
            )
            add_note(index, f"n{n}.md", text, conn=conn)
    settings = SearchSettings(mode="keyword", min_score=0.0, bridges=False)
    queries = [" ".join(rng.sample(words, 3)) for _ in range(40)]

    def first(query: str, n: int) -> list[str]:
        found = run_search(index, query, replace(settings, max_results=n), workspace=tmp_path)
        return [r.path for r in found.results]

    for query in queries:
        assert first(query, 1) == first(query, 10)[:1], query
        assert first(query, 3) == first(query, 10)[:3], query
    index.close()


def test_a_code_only_a_hidden_note_names_counts_as_one_memory_lacks(tmp_path: Path) -> None:
    """Results naming none of the question's codes count half only when one the caller may
    see does: behind a path filter, a code only a hidden note names weighs on the visible
    results as a code memory lacks does, exactly as if the hidden note did not exist (the
    lacked-name factor), not as a held code they fail to name (which would halve them for a
    note the caller may not know of, and tell it that note exists)."""
    index = Index.open(tmp_path / "index.sqlite")
    add_note(index, "hidden/hanami.md", "| HNM-147 | pickup time change | in review |")
    add_note(index, "qingcheng.md", "| QC-27 | 会员页 | 状态 已交 |")
    alone = Index.open(tmp_path / "alone.sqlite")
    add_note(alone, "qingcheng.md", "| QC-27 | 会员页 | 状态 已交 |")
    settings = SearchSettings(mode="keyword", min_score=0.0)
    found = run_search(
        index,
        "HNM-147 状态",
        settings,
        workspace=tmp_path,
        path_filter=lambda path, source: not path.startswith("hidden/"),
    )
    assert [r.path for r in found.results] == ["qingcheng.md"]
    (hit,) = found.results
    assert hit.score == pytest.approx(engine.LACKED_NAME_FACTOR * hit.text_score)
    assert found.not_in_memory == ("HNM-147",)
    without = run_search(alone, "HNM-147 状态", settings, workspace=tmp_path)
    assert without.not_in_memory == ("HNM-147",)
    (other,) = without.results
    assert other.score == pytest.approx(engine.LACKED_NAME_FACTOR * other.text_score)
    unfiltered = run_search(index, "HNM-147 状态", settings, workspace=tmp_path)
    assert [r.path for r in unfiltered.results] == ["hidden/hanami.md", "qingcheng.md"]
    assert unfiltered.not_in_memory == ()
    index.close()
    alone.close()


def test_behind_a_filter_meaning_alone_does_not_answer_for_what_only_a_hidden_note_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The absent-term penalty counts a word only hidden notes hold as one memory lacks: a
    question about PayPal, which only a note behind the caller's filter names, gets nothing
    from the visible note that is close in meaning, as it would if that note did not exist;
    without the filter, the note naming PayPal answers. (The memory is counted as one that
    writes enough English for a lacked word to tell.)"""
    monkeypatch.setattr(keyword, "TELLING_LINES", 1)
    index = Index.open(tmp_path / "index.sqlite")
    note = add_note(index, "a.md", "ledger moved its card payments to Stripe")
    add_note(index, "hidden/b.md", "ledger PayPal rollout checklist")
    for i, other in enumerate(["tea with lemon", "the mill opens at nine", "a river trip"]):
        add_note(index, f"other{i}.md", other)
    settings = SearchSettings(min_score=0.35)
    visible = {"path_filter": lambda path, source: not path.startswith("hidden/")}

    def found(query: str, **scope: Any) -> list[str]:
        vectors = _Fixed([(note, 0.8)])
        response = run_search(index, query, settings, workspace=tmp_path, vectors=vectors, **scope)
        return [r.path for r in response.results]

    assert found("ledger stripe", **visible) == ["a.md"]
    assert found("ledger paypal", **visible) == []
    assert found("ledger paypal")[0] == "hidden/b.md"
    index.close()


def test_keyword_candidates_are_fts5_s_then_the_named_day_s_then_also_each_once(
    tmp_path: Path,
) -> None:
    index = Index.open(tmp_path / "index.sqlite")
    heron = add_note(index, "a.md", "heron nests by the lake")
    logged = add_note(index, "memory/2026-09-05.md", "lunch with Ana", date="2026-09-05")
    both = add_note(index, "memory/2026-09-04.md", "a heron again", date="2026-09-04")
    other = add_note(index, "c.md", "tea with lemon")
    profile = query_profile(index, "heron on Sep 5", stopwords=STOP_WORDS)
    assert profile is not None and profile.days == ("2026-09-05",)
    chunks = index.chunks_by_ids([other, heron])
    also = [KeywordRow(chunks[other], 0.0), KeywordRow(chunks[heron], 0.0)]
    rows = keyword.keyword_candidates(index, profile, 10, also=also)
    ids = [row.chunk.id for row in rows]
    assert sorted(ids[:2]) == sorted([heron, both])  # FTS5's, for "heron"
    assert ids[2:] == [logged, other]  # the day's log, then ``also`` not already there
    # scored from the candidates given, the index is not read for them again: none, nothing
    assert keyword.keyword_search(index, "heron on Sep 5", 10, profile=profile, candidates=[]) == []
    scored = keyword.keyword_search(index, "heron on Sep 5", 10, profile=profile, candidates=rows)
    assert {row.chunk.id for row, _ in scored} >= {heron, both, logged}
    index.close()
