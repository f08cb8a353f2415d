"""BM25 score mapping, hybrid merge and temporal decay (spec §6.3, §6.4, §8; cases 4–7, 24–29)."""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memdir.search import bm25_rank_to_score
from memdir.search.decay import date_of_path, decay_multiplier, is_evergreen, timestamp_for
from memdir.search.hybrid import merge, normalise_weights


def test_case_4_rank_to_score() -> None:
    assert bm25_rank_to_score(0) == pytest.approx(1.0)
    assert bm25_rank_to_score(1) == pytest.approx(0.5)
    assert bm25_rank_to_score(10) < bm25_rank_to_score(1)
    assert bm25_rank_to_score(-100) == pytest.approx(1.0, abs=0.05)
    assert bm25_rank_to_score(float("nan")) == pytest.approx(0.001)


def test_case_5_more_negative_rank_scores_higher() -> None:
    a, b, c = bm25_rank_to_score(-4.2), bm25_rank_to_score(-2.1), bm25_rank_to_score(-0.5)
    assert a > b > c
    assert a == pytest.approx(0.8077, abs=1e-4)


def test_case_6_union_with_weights() -> None:
    merged = {
        c.chunk_id: c.score
        for c in merge([(1, 0.9)], [(2, 1.0)], vector_weight=0.7, text_weight=0.3)
    }
    assert merged == {1: pytest.approx(0.63), 2: pytest.approx(0.3)}


def test_case_7_same_id_in_both_lists() -> None:
    (only,) = merge([(1, 0.2)], [(1, 1.0)], vector_weight=0.5, text_weight=0.5)
    assert only.score == pytest.approx(0.6)
    assert only.in_vector and only.in_keyword


def test_floor_score_uses_the_chunks_own_vector_and_follows_every_scale() -> None:
    # Chunk 1 was scored by its best line (0.9) but its own vector scored 0.5; chunk 2 has no
    # line above its own vector, and chunk 3 is a keyword match only.
    merged = {
        c.chunk_id: c
        for c in merge(
            [(1, 0.9), (2, 0.6)],
            [(1, 0.4), (3, 1.0)],
            vector_weight=0.5,
            text_weight=0.5,
            own_vectors={1: 0.5},
        )
    }
    assert merged[1].score == pytest.approx(0.65)
    assert merged[1].floor_score == pytest.approx(0.45)
    assert merged[2].floor_score == pytest.approx(merged[2].score)
    assert merged[3].floor_score == pytest.approx(0.5)
    merged[1].scale(0.5)
    merged[1].scale(0.8)
    assert merged[1].score == pytest.approx(0.26)
    assert merged[1].floor_score == pytest.approx(0.18)


def test_floor_score_is_the_score_without_own_vectors() -> None:
    (only,) = merge([(1, 0.2)], [(1, 1.0)], vector_weight=0.5, text_weight=0.5)
    assert only.floor_score == only.score


def test_weights_are_clamped_and_normalised() -> None:
    assert normalise_weights(2.0, 0.0) == (1.0, 0.0)
    assert normalise_weights(0.0, 0.0) == (0.7, 0.3)
    assert normalise_weights(0.35, 0.15) == pytest.approx((0.7, 0.3))


def test_case_24_multiplier() -> None:
    assert decay_multiplier(10, 30) == pytest.approx(math.exp(-math.log(2) / 30 * 10))
    assert 0.8 * decay_multiplier(10, 30) == pytest.approx(0.8 * math.exp(-math.log(2) / 3))


def test_case_25_half_life() -> None:
    assert decay_multiplier(30, 30) == pytest.approx(0.5)


def test_case_28_future_dates_do_not_decay() -> None:
    assert decay_multiplier(-100, 30) == 1.0


def test_case_26_evergreen_files_never_decay(tmp_path: Path) -> None:
    for name in ("MEMORY.md", "memory/projects.md"):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")
        old = datetime(2010, 1, 1, tzinfo=UTC).timestamp()
        os.utime(target, (old, old))
        assert is_evergreen(name, "memory")
        assert timestamp_for(name, "memory", tmp_path) is None


def test_dated_paths_including_slugged_ones() -> None:
    """Upstream treats memory/2026-01-16-vendor-pitch.md as evergreen; memdir dates it."""
    assert date_of_path("memory/2026-01-12.md") == datetime(2026, 1, 12, tzinfo=UTC)
    assert date_of_path("memory/2026-01-16-vendor-pitch.md") == datetime(2026, 1, 16, tzinfo=UTC)
    assert date_of_path("memory/sub/2026-01-01.md") == datetime(2026, 1, 1, tzinfo=UTC)
    assert date_of_path("memory/2026-02-30.md") is None
    assert date_of_path("memory/projects.md") is None
    assert not is_evergreen("memory/2026-01-16-vendor-pitch.md", "memory")


def test_case_29_other_files_decay_by_mtime(tmp_path: Path) -> None:
    target = tmp_path / "notes" / "x.md"
    target.parent.mkdir()
    target.write_text("x")
    thirty_days_ago = time.time() - 30 * 86400
    os.utime(target, (thirty_days_ago, thirty_days_ago))
    ts = timestamp_for("notes/x.md", "memory", tmp_path)
    assert ts is not None
    assert decay_multiplier((time.time() - ts) / 86400, 30) == pytest.approx(0.5, abs=0.01)
