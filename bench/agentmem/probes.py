"""What the bench's probes (``named.py``, ``codes.py``, ``days.py``) share: an indexed copy of a
memory, the text each chunk's terms are matched in, and how their results are written."""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from check import MEMORIES, add_memory_option

from common import Store, environment, print_table, write_results
from memdir.chunking import embed_input
from memdir.text import match_text, term_matcher


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


def note_texts(root: Path) -> Iterator[str]:
    """The text of each Markdown note under ``root``, in path order: what a probe reads for
    the things a memory names (codes, names, quoted spans)."""
    for path in sorted(root.rglob("*.md")):
        yield path.read_text(encoding="utf-8")


def chunk_bodies(mem: Any) -> list[tuple[tuple[str, int], str]]:
    """``((path, start line), text)`` of every chunk, as a query term is matched in it."""
    return [
        ((path, start), match_text(embed_input(context, text)))
        for path, start, text, context in mem.index.read(
            "SELECT path, start_line, text, context FROM chunks", []
        )
    ]


def chunks_holding(chunks: Sequence[tuple[Any, str]], terms: Sequence[str]) -> set[Any]:
    """The keys of the ``chunks`` (:func:`chunk_bodies`) that hold every one of ``terms`` (query
    terms): a probe's hits; none for no term."""
    tests = [term_matcher(t) for t in terms]
    return {key for key, body in chunks if tests and all(t(body) for t in tests)}


_WORD = re.compile(r"[a-z][a-z0-9]{3,}")


def word_counts(chunks: Sequence[tuple[Any, str]]) -> dict[str, int]:
    """How many of ``chunks`` (:func:`chunk_bodies`) hold each word of four characters or
    more."""
    counts: dict[str, int] = {}
    for _, body in chunks:
        for w in set(_WORD.findall(body)):
            counts[w] = counts.get(w, 0) + 1
    return counts


def rarest_word(body: str, counts: dict[str, int], skip: Iterable[str] = ()) -> str | None:
    """The word of ``body`` fewest chunks hold but one (:func:`word_counts`), not in ``skip``:
    what a probe's question asks about beside the thing it names. A word search reads as a
    whole one only (not the ``inflight`` of ``max_inflight``, the ``x80ad`` of ``0x80AD``): a
    hit holds it as :func:`memdir.text.term_matcher` tells, which no chunk did of those."""
    skipped = set(skip)
    beside = [
        w
        for w in set(_WORD.findall(body))
        if counts[w] > 1 and w not in skipped and term_matcher(w)(body)
    ]
    return min(beside, key=lambda w: (counts[w], w)) if beside else None


FORM_FRAMES = (
    "{form} {word}",
    "what do my notes say about the {form} {word}?",
    "{form} {word} 是怎么回事？",
)


def ask_other_forms(doc: str, what: str, forms: dict[str, list[str]]) -> int:
    """The probe of ``abbreviations.py`` and ``glossary.py``: each form of ``forms`` some chunk
    writes, asked as each of its other forms no chunk writes, in :data:`FORM_FRAMES` with the
    rarest word beside it in its first chunk; a hit holds both, as the notes write the form."""
    args = probe_arguments(doc)
    with indexed_copy(args.memory, args.provider, f"memdir-{what}-") as (_, mem):
        chunks = chunk_bodies(mem)
        counts = word_counts(chunks)
        asked = Asked(mem, args.modes, list(FORM_FRAMES), 3)
        held = 0
        for form, others in sorted(forms.items()):
            holds = term_matcher(match_text(form))  # 切り戻し as the chunks' folded text has it
            naming = [(key, body) for key, body in chunks if holds(body)]
            if not naming:
                continue
            held += 1
            word = rarest_word(naming[0][1], counts, [w for w in counts if w in form])
            if word is None:
                continue
            with_word = term_matcher(word)
            found = {k for k, b in naming if with_word(b)}
            for other in others:
                if any(term_matcher(match_text(other))(b) for _, b in chunks):
                    continue  # memory writes this form too
                asked.ask_frames(FORM_FRAMES, f"{form} as {other}", found, form=other, word=word)
    asked.print(f"{held} forms memory writes")
    write_missed(args, what, asked, forms=held)
    return 0


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
