"""Temporal decay: older dated notes score lower (spec §8), evergreen notes never decay.

A note is *dated* when its file name starts with a calendar date: ``memory/2026-01-12.md`` and,
unlike upstream, also ``memory/2026-01-12-vendor-pitch.md`` (what OpenClaw's session hook writes)
and dated files in sub-folders. ``MEMORY.md`` and undated files under ``memory/`` are evergreen.
Other files (extra paths, sessions) decay by their modification time.
"""

from __future__ import annotations

import math
import os
import re
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["date_of_path", "decay_multiplier", "is_evergreen", "timestamp_for"]

_DATED = re.compile(
    r"(?:^|/)(\d{4})-(\d{2})-(\d{2})(?:[-_ .][^/]*)?\.(?:md|markdown)$", re.IGNORECASE
)
_DAY_S = 86_400.0


def date_of_path(path: str) -> datetime | None:
    """The date in a file name like ``memory/2026-01-12.md`` or ``…/2026-01-12-slug.md``."""
    m = _DATED.search(path)
    if not m:
        return None
    try:
        return datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=UTC)
    except ValueError:
        return None


def is_evergreen(path: str, source: str) -> bool:
    if source != "memory":
        return False
    name = path.rsplit("/", 1)[-1]
    if path in ("MEMORY.md", "memory.md") or name in ("MEMORY.md", "memory.md"):
        return True
    return path.startswith("memory/") and date_of_path(path) is None


def timestamp_for(
    path: str, source: str, workspace: Path, *, abs_path: Path | None = None
) -> float | None:
    """Seconds since the epoch that a result's age counts from, or ``None`` for no decay."""
    dated = date_of_path(path)
    if dated is not None:
        return dated.timestamp()
    if is_evergreen(path, source):
        return None
    try:
        return os.stat(abs_path or workspace / path).st_mtime
    except OSError:
        return None


def decay_multiplier(age_days: float, half_life_days: float) -> float:
    """``exp(-ln 2 / half_life × age)``; the future counts as age 0."""
    half = max(1.0, math.floor(half_life_days))
    return math.exp(-math.log(2) / half * max(0.0, age_days))
