"""memdir's cache folder, for files rebuilt from installed packages (never memory itself)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["cache_root"]


def cache_root() -> Path:
    """memdir's cache folder: ``$MEMDIR_CACHE_DIR``, else the platform's user cache folder."""
    explicit = os.environ.get("MEMDIR_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "memdir" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "memdir"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memdir"
