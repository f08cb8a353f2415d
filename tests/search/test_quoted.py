"""What a question writes between backticks is searched for as written
(:mod:`memdir.search.quoted`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir.index import Index
from memdir.search import engine
from memdir.search.engine import SearchSettings, run_search
from memdir.search.quoted import holder
from memdir.text.stopwords import STOP_WORDS

from .helpers import add_note


@pytest.mark.parametrize(
    ("span", "text", "held"),
    [
        ("main", "never push to `main`; open a PR", True),
        ("main", "the maintenance window", False),
        ("main", "domain names", False),
        ("--check", "pg_upgrade --check passed", True),
        ("--check", "check the dashboard", False),
        ("nats://", "broker.url must be a nats:// URL", True),
        ("nats://", "NATS staging cluster", False),
        ("v1.2", "shipped v1.2 today", True),
        ("v1.2", "shipped v1.23 today", False),
        ("v1.2", "shipped v1.2.", True),
        ("Relay-Workers", "scale relay-workers to 20", True),
    ],
)
def test_a_quoted_span_is_held_as_written_not_inside_a_longer_word(
    span: str, text: str, held: bool
) -> None:
    assert holder(span)(text.casefold()) is held


class _Nearest:
    """A vector half that finds only ``near`` and knows the similarity of every chunk."""

    def __init__(self, near: list[tuple[int, float]], every: dict[int, float]) -> None:
        self.near, self.every = near, every

    def search(self, query: str, limit: int, assist: object = None) -> list[tuple[int, float]]:
        return list(self.near)

    def scores(self, query: str, chunk_ids: list[int]) -> list[tuple[int, float]]:
        return [(cid, self.every[cid]) for cid in chunk_ids if cid in self.every]


def _memory(tmp_path: Path) -> tuple[Index, dict[str, int]]:
    index = Index.open(tmp_path / "index.sqlite")
    ids = {}
    with index.transaction() as conn:
        # many short notes about checking things, one long one running the flag
        for i in range(30):
            ids[f"check{i}"] = add_note(
                index, f"memory/check{i}.md", f"check the dashboard {i}", conn=conn
            )
        ids["flag"] = add_note(
            index,
            "memory/pg16.md",
            "PG 13 to 16 rehearsal on staging: ran pg_upgrade with --link --check first, "
            "it reported a missing extension, installed pg_stat_statements on the new cluster, "
            "then the real run took eleven minutes and the rollback plan was written down.",
            conn=conn,
        )
        ids["main"] = add_note(
            index, "MEMORY.md", "Never push to `main`; always open a PR.", conn=conn
        )
        for i in range(5):
            ids[f"zh{i}"] = add_note(index, f"memory/zh{i}.md", f"主要讲了 OPS-12{i}", conn=conn)
    return index, ids


@pytest.mark.parametrize("mode", ["keyword", "hybrid", "vector"])
def test_a_quoted_flag_finds_the_note_running_it(tmp_path: Path, mode: str) -> None:
    """``--check`` is the common word check to FTS5: the short notes about checking things
    outranked the one long note that runs ``pg_upgrade --check``. Quoted, or written as a long
    option, the flag is looked up as written, in every mode, and the results not holding it
    count half."""
    index, ids = _memory(tmp_path)
    near = [(ids[f"check{i}"], 0.8) for i in range(10)]
    vectors = _Nearest(near, {cid: 0.6 for cid in ids.values()} | dict(near))
    settings = SearchSettings(mode=mode, min_score=0.0, max_results=3)

    def first(query: str) -> str:
        found = run_search(
            index,
            query,
            settings,
            workspace=tmp_path,
            vectors=None if mode == "keyword" else vectors,
            stopwords=STOP_WORDS,
        )
        return found.results[0].path

    assert first("what does `--check` do?") == "memory/pg16.md"
    assert first("what does --check do?") == "memory/pg16.md"  # an option needs no backticks
    if mode == "keyword":  # the word alone is the word check, as before
        assert first("what does check do?") != "memory/pg16.md"
    index.close()


def test_a_quoted_word_is_not_bridged_to_the_other_language(tmp_path: Path) -> None:
    """`` `main` `` is the branch, not 主要: quoted, the word is no bridge to Chinese, and the
    note holding it comes first; unquoted, the Chinese notes may answer it as before."""
    index, _ = _memory(tmp_path)
    settings = SearchSettings(mode="keyword", min_score=0.0, max_results=3)
    found = run_search(
        index, "what is `main` for?", settings, workspace=tmp_path, stopwords=STOP_WORDS
    )
    assert [r.path for r in found.results][:1] == ["MEMORY.md"]
    for r in found.results[1:]:  # the others hold no `main`: halved
        assert r.score == pytest.approx(engine.UNNAMED_CODE_FACTOR * r.text_score)
    index.close()


def test_a_quoted_span_memory_lacks_demotes_nothing(tmp_path: Path) -> None:
    """A span memory does not hold as written demotes nothing: the question may misquote it.
    (Its word weighs as an identifier's, absent, so the scores are lower; the order stays.)"""
    index, _ = _memory(tmp_path)
    settings = SearchSettings(mode="keyword", min_score=0.0, max_results=3)
    quoted = run_search(
        index, "what does `--verify` check?", settings, workspace=tmp_path, stopwords=STOP_WORDS
    )
    plain = run_search(
        index, "what does verify check?", settings, workspace=tmp_path, stopwords=STOP_WORDS
    )
    assert [r.path for r in quoted.results] == [r.path for r in plain.results]
    # the span memory lacks is named as written, in place of its words
    assert plain.not_in_memory == ("verify",)
    assert quoted.not_in_memory == ("--verify",)


def test_a_quoted_span_memory_holds_only_in_prose_is_named_not_in_memory(tmp_path: Path) -> None:
    """Memory holds the word check, but no note writes `--check-all`: the span is
    named as written (its words are no longer listed apart); a span memory holds is not."""
    index, _ = _memory(tmp_path)
    for mode in ("keyword", "hybrid"):

        def absent(query: str, mode: str = mode) -> tuple[str, ...]:
            return run_search(
                index,
                query,
                SearchSettings(mode=mode, min_score=0.0),
                workspace=tmp_path,
                vectors=_Nearest([], {}) if mode == "hybrid" else None,
                stopwords=STOP_WORDS,
            ).not_in_memory

        assert absent("what does `--check-all` do to the dashboard?") == ("--check-all",)
        assert absent("what does `--check` do?") == ()
    index.close()


def test_only_the_first_quoted_spans_are_looked_up(tmp_path: Path) -> None:
    """A question quoting many spans costs at most MAX_QUOTED reads; the others are words."""
    from memdir.search.quoted import MAX_QUOTED, quoted_rows

    index, ids = _memory(tmp_path)
    spans = [f"--opt{i}" for i in range(MAX_QUOTED)] + ["--check"]
    rows, held = quoted_rows(index, spans, None)
    assert rows == [] and held == []  # --check comes after the first MAX_QUOTED
    rows, held = quoted_rows(index, ["--check"], None)
    assert [row.chunk.id for row in rows] == [ids["flag"]] and held == ["--check"]
    index.close()


def test_a_quoted_span_only_a_hidden_note_holds_changes_nothing_the_caller_sees(
    tmp_path: Path,
) -> None:
    """Behind a path filter, a span only a note the caller may not see holds is lacked: no
    result is halved for not holding it, and it is named in not_in_memory, which so never
    hints at the hidden note."""
    index, _ = _memory(tmp_path)
    settings = SearchSettings(mode="keyword", min_score=0.0, max_results=3)

    def visible(path: str, source: str) -> bool:
        return path != "memory/pg16.md"

    quoted = run_search(
        index,
        "what does `--check` do?",
        settings,
        workspace=tmp_path,
        stopwords=STOP_WORDS,
        path_filter=visible,
    )
    assert "memory/pg16.md" not in [r.path for r in quoted.results]
    assert quoted.results and all(r.score == pytest.approx(r.text_score) for r in quoted.results)
    assert quoted.not_in_memory == ("--check",)
    index.close()


def test_a_span_many_notes_hold_gives_only_its_share_of_candidates(tmp_path: Path) -> None:
    """Every chunk given is scored, so a span held by many notes gives at most its share of
    the candidate pool, and a second span still gets its own share."""
    from memdir.search.quoted import quoted_rows

    index, ids = _memory(tmp_path)  # thirty notes hold `check`, one holds `--check`
    rows, held = quoted_rows(index, ["check", "main"], None, limit=4)
    paths = [row.chunk.path for row in rows]
    assert held == ["check", "main"]
    assert len(paths) == 3 and paths[-1] == "MEMORY.md"  # two of `check`'s, then `main`'s one
    rows, _ = quoted_rows(index, ["--check"], None, limit=4)
    assert [row.chunk.id for row in rows] == [ids["flag"]]
    index.close()
