"""Every amount of time, size or things a memory names (``30s``, ``800ms``, ``13 分钟``,
``48GB``, ``168k``, ``100 万``), asked as written the other ways people write it: is a chunk
naming it among the first three results?

    python bench/agentmem/quantities.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Notes write ``timeout 30s`` or ``锁等了 13 分钟``; a question says "30 seconds", 30 秒, 13
minutes, 168,000 or 16.8万 (:func:`memdir.text.quantities.writings`). Each amount some chunk
names is asked in each writing no chunk holds (as FTS5 reads it: 30秒 and 30 秒 are one), in
three frames with the rarest other word of the first chunk naming it, so that the question is
about something; a hit is a chunk naming that amount in any writing and holding that word. It
uses no question of the bench, so it is no test half. No score floor. Writes
``bench/results/agentmem[-designer]-quantities.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import (  # noqa: E402
    FORM_FRAMES,
    Asked,
    chunk_bodies,
    indexed_copy,
    probe_arguments,
    rarest_word,
    word_counts,
    write_missed,
)

from memdir.text import fts_document, term_matcher  # noqa: E402
from memdir.text.quantities import quantities, writings  # noqa: E402


def main() -> int:
    args = probe_arguments(__doc__ or "")
    with indexed_copy(args.memory, args.provider, "memdir-quantities-") as (_, mem):
        chunks = chunk_bodies(mem)
        counts = word_counts(chunks)
        naming: dict[tuple[str, str], list[tuple[tuple[str, int], str]]] = {}
        written: dict[tuple[str, str], set[str]] = {}
        for key, body in chunks:
            for q in quantities(body):
                naming.setdefault((q.number, q.unit), []).append((key, body))
                written.setdefault((q.number, q.unit), set()).add(
                    fts_document(body[q.start : q.end])
                )
        asked = Asked(mem, args.modes, list(FORM_FRAMES), 3)
        for (number, unit), holding in sorted(naming.items()):
            skip = [w for w in counts if any(w in f for f in written[(number, unit)])]
            word = rarest_word(holding[0][1], counts, skip)
            if word is None:
                continue
            with_word = term_matcher(word)
            found = {k for k, b in holding if with_word(b)}
            for form in writings(number, unit):
                if fts_document(form) in written[(number, unit)]:
                    continue  # memory writes it so
                key = f"{number}{unit} as {form}"
                asked.ask_frames(FORM_FRAMES, key, found, form=form, word=word)
    asked.print(f"{len(naming)} amounts")
    write_missed(args, "quantities", asked, amounts=[f"{n}{u}" for n, u in sorted(naming)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
