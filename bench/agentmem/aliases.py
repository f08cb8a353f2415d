"""Every person a memory declares in two scripts (``老王 (Wang Tao)``, ``Ken Ishida（石田健）``,
``| 何佳 He Jia |``), asked about by the form its notes write less often: is a note naming them
in the other form among the first three results of each mode?

    python bench/agentmem/aliases.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

A people note introduces a person once in both scripts, and the daily entries then name them one
way (和老王吃了…, Ken 说…). An agent asks in the other form as often ("What has Wang Tao been
working on?", 石田さんは最近何をしていますか？). The pairs are found here with a pattern of this
probe's own (a Han name of two to four characters beside one to three capitalised words, one in
brackets after the other, or side by side in a table cell), not with memdir's; the rarer form
(fewer chunks hold it) is asked in four frames, and a Latin name of two words in the other order
(Tao Wang) in a fifth. A hit is a result that names the person in the
other form and not in the asked one (a note the asked form alone could not reach). Each
question is asked twice: as memdir searches, and with the declarations ignored
(``memdir.search.spellings.declared_names`` returning none), so the two can be compared in one run.
Only ``MEMORY.md`` and ``memory/people/`` are read for pairs: elsewhere a bracket annotates as
often as it declares (``Stripe（国际卡）``, ``Priya（前半场）``).
No graded question is used, so it is no test half. No score floor. Writes
``bench/results/agentmem[-designer]-aliases.json``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import results_name  # noqa: E402
from probes import Asked, chunk_bodies, indexed_copy, probe_arguments, write_probe  # noqa: E402

from common import RESULTS_DIR  # noqa: E402
from memdir.search import spellings  # noqa: E402
from memdir.text import match_text, term_matcher  # noqa: E402

FRAMES = (
    "What has {n} been working on?",
    "Has {n} been busy lately?",  # the sentence's capital before the name
    "{n}最近在忙什么？",
    "{n}さんは最近何をしていますか？",
    "What has {r} been working on?",  # a Latin name of two words, in the other order
)
TOP = 3
_HAN = r"[\u4e00-\u9fff\u3005]{2,4}"
_LATIN = r"[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}"
_PAIRS = re.compile(
    rf"(?<![\u3040-\u30ff\u4e00-\u9fff])(?P<h1>{_HAN})\s*[（(]\s*(?P<l1>{_LATIN})\s*[)）]"
    rf"|(?P<l2>{_LATIN})\s*[（(]\s*(?P<h2>{_HAN})\s*[)）]"
    rf"|\|\s*(?P<h3>{_HAN})\s+(?P<l3>[A-Z][a-z]+ [A-Z][a-z]+)\s*\|"
)


def declared_pairs(root: Path) -> list[tuple[str, str]]:
    """``(han, latin)`` of each person ``MEMORY.md`` and the people notes declare in both
    scripts (elsewhere a bracket annotates as often: ``Stripe（国际卡）``, ``Priya（前半场）``)."""
    found: dict[tuple[str, str], None] = {}
    for path in [root / "MEMORY.md", *sorted((root / "memory" / "people").rglob("*.md"))]:
        for m in _PAIRS.finditer(path.read_text(encoding="utf-8")):
            found[(m["h1"] or m["h2"] or m["h3"], m["l1"] or m["l2"] or m["l3"])] = None
    return list(found)


def main() -> int:
    args = probe_arguments(__doc__ or "")
    with indexed_copy(args.memory, args.provider, "memdir-aliases-") as (root, mem):
        bodies = [body for _, body in chunk_bodies(mem)]
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        ignored = Asked(mem, args.modes, list(FRAMES), TOP)
        pairs = []
        for han, latin in declared_pairs(root):
            holds = {form: term_matcher(match_text(form)) for form in (han, latin)}
            counts = {form: sum(map(h, bodies)) for form, h in holds.items()}
            rare, common = sorted((han, latin), key=lambda f: (counts[f], f))
            if counts[common] <= counts[rare]:
                continue  # nothing the other form reaches that this one does not
            pairs.append({"asked": rare, "other": common, "chunks": counts})

            def hit(h: Any, r: Any = holds[rare], c: Any = holds[common]) -> bool:
                lines = (root / h.path).read_text(encoding="utf-8").splitlines()
                text = match_text("\n".join(lines[h.start_line - 1 : h.end_line]))
                return c(text) and not r(text)

            words = rare.split()
            for frame in FRAMES:
                if "{r}" in frame and (len(words) != 2 or not rare.isascii()):
                    continue  # Wang Tao as Tao Wang, Sato Kenta as Kenta Sato
                question = frame.format(n=rare, r=" ".join(reversed(words)))
                asked.ask(frame, question, hit, f"{rare} → {common}")
                real = spellings.declared_names
                spellings.declared_names = lambda *_: []  # type: ignore[assignment]
                try:
                    ignored.ask(frame, question, hit, f"{rare} → {common}")
                finally:
                    spellings.declared_names = real  # type: ignore[assignment]
        asked.print(f"{len(pairs)} people declared in two scripts, asked by the rarer form")
        ignored.print("\nthe same, declarations ignored")
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'aliases')}.json"
    write_probe(
        out,
        "agentmem-aliases",
        args.memory,
        args.provider,
        {
            "pairs": pairs,
            "questions": asked.asked,
            "top": TOP,
            "missed": asked.missed,
            "missed_declarations_ignored": ignored.missed,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
