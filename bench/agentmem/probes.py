"""What the bench's probes (``named.py``, ``codes.py``, ``days.py``) share: an indexed copy of a
memory, the text each chunk's terms are matched in, and how their results are written."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from check import MEMORIES, add_memory_option

from common import Store, environment, print_table, write_results
from memdir.chunking import embed_input
from memdir.text import match_text


def probe_arguments(doc: str) -> argparse.Namespace:
    """The command line of a probe asking every mode: ``--memory``, ``--modes`` (a list once
    parsed), ``--provider`` and ``--out``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    add_memory_option(parser)
    parser.add_argument("--modes", default="keyword,vector,hybrid")
    parser.add_argument("--provider", default="local")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    args.modes = [m for m in args.modes.split(",") if m]
    return args


@contextmanager
def indexed_copy(memory: str, provider: str, prefix: str) -> Iterator[tuple[Path, Any]]:
    """``(root, Memory)`` of a temporary copy of ``memory``'s workspace, indexed with the
    embedder ``provider``; searches are left to refresh nothing."""
    workspace, _ = MEMORIES[memory]
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        root = Path(tmp) / "workspace"
        shutil.copytree(workspace, root)
        with Store(root, {"embedding.provider": provider}, "hybrid", refresh=False) as store:
            store.sync()
            yield root, store._mem


def chunk_bodies(mem: Any) -> list[tuple[tuple[str, int], str]]:
    """``((path, start line), text)`` of every chunk, as a query term is matched in it."""
    return [
        ((path, start), match_text(embed_input(context, text)))
        for path, start, text, context in mem.index.read(
            "SELECT path, start_line, text, context FROM chunks", []
        )
    ]


def daily_logs(root: Path) -> dict[date, str]:
    """The text of each daily log of a workspace (``memory/YYYY-MM-DD.md``), by its day, in
    date order."""
    logs = sorted(root.glob("memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md"))
    return {date.fromisoformat(log.stem): log.read_text(encoding="utf-8") for log in logs}


def write_probe(
    out: Path, benchmark: str, memory: str, provider: str, figures: dict[str, Any]
) -> None:
    """The results file of a probe: what was asked of which memory, and where it was run."""
    write_results(
        out,
        {
            "benchmark": benchmark,
            "memory": memory,
            **figures,
            "settings": {"provider": provider},
            "environment": environment(),
        },
    )


def holds_line(path: str, line: int) -> Callable[[Any], bool]:
    """Whether a result is of ``path`` and its lines hold ``line``: a hit of a probe that
    asks about one line of a note."""
    return lambda h: h.path == path and h.start_line <= line <= h.end_line


class Asked:
    """A probe's questions, frame by frame, asked of ``mem`` in each of ``modes``: how many
    each frame asked, and per mode the keys of those whose first ``top`` results held no hit."""

    def __init__(self, mem: Any, modes: list[str], frames: list[str], top: int) -> None:
        self.mem, self.modes, self.frames, self.top = mem, modes, frames, top
        self.asked = dict.fromkeys(frames, 0)
        self.missed: dict[str, dict[str, list[str]]] = {mode: {} for mode in modes}

    def ask(
        self,
        frame: str,
        question: str,
        hit: Callable[[Any], bool],
        key: str,
        today: date | None = None,
    ) -> None:
        """Ask ``question`` (of ``frame``) in every mode; ``hit`` tells a result that answers."""
        self.ask_all(frame, question, lambda results: any(map(hit, results)), key, today)

    def ask_all(
        self,
        frame: str,
        question: str,
        answered: Callable[[Sequence[Any]], bool],
        key: str,
        today: date | None = None,
    ) -> None:
        """Ask ``question`` (of ``frame``) in every mode; ``answered`` tells whether the first
        results, all of them together, answer it (a question about several days wants each)."""
        self.asked[frame] += 1
        for mode in self.modes:
            results = self.mem.search(
                question, max_results=self.top, min_score=0.0, mode=mode, refresh=False, today=today
            ).results
            if not answered(results):
                self.missed[mode].setdefault(frame, []).append(key)

    def ask_frames(
        self, frames: Sequence[str], key: str, found: set[tuple[str, int]], **fields: str
    ) -> None:
        """Ask each of ``frames``, filled with ``fields``; a hit is a result whose
        ``(path, start line)`` is in ``found``."""
        for frame in frames:
            self.ask(frame, frame.format(**fields), lambda h: (h.path, h.start_line) in found, key)

    def print(self, title: str) -> None:
        """``title`` and a table: per mode, the questions without a hit, in all and per frame."""
        total = sum(self.asked.values())
        print(f"{title}: {total} questions ({len(self.frames)} frames)")
        rows = [
            [mode, total, sum(len(v) for v in self.missed[mode].values())]
            + [f"{len(self.missed[mode].get(f, ()))}/{self.asked[f]}" for f in self.frames]
            for mode in self.modes
        ]
        print_table(["mode", "questions", f"none in top {self.top}", *self.frames], rows)


def write_missed(args: Any, what: str, asked: Asked, **found: Any) -> None:
    """Write ``bench/results/agentmem[-designer]-<what>.json`` (or ``args.out``): ``found``
    (what the memory holds that was asked about), the questions, frames and misses of
    ``asked``."""
    from check import results_name

    from common import RESULTS_DIR

    write_probe(
        args.out or RESULTS_DIR / f"{results_name(args.memory, what)}.json",
        f"agentmem-{what}",
        args.memory,
        args.provider,
        {
            **found,
            "questions": sum(asked.asked.values()),
            "frames": list(asked.frames),
            "top": asked.top,
            "missed": asked.missed,
        },
    )
