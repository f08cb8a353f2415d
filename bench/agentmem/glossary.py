"""Every word of software work a memory writes in one language (连接池, 压测, 熔断; load test,
on-call), asked in the other: is a chunk writing it as the notes do among the first three
results?

    python bench/agentmem/glossary.py [--memory engineer|designer] [--modes ...]

Notes write ``9/2 的 staging 压测``; a question says "the load test on staging", or the other
way round. The words are those of :data:`memdir.text.glossary.GLOSSARY` that some chunk
writes; each is asked as each of its words in the other language no chunk writes, in three
frames with a word of a chunk holding it (the rarest other word of the first such chunk, so
that the question is about something), and a hit is a chunk holding both that word and the
form as the notes write it. It uses no question of the bench, so it is no test half. No score
floor. Writes ``bench/results/agentmem[-designer]-glossary.json``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import Asked, chunk_bodies, indexed_copy, probe_arguments, write_missed  # noqa: E402

from memdir.text import term_matcher  # noqa: E402
from memdir.text.glossary import GLOSSARY  # noqa: E402

FRAMES = (
    "{form} {word}",
    "what do my notes say about the {form} {word}?",
    "{form} {word} 是怎么回事？",
)
TOP = 3
_WORD = re.compile(r"[a-z][a-z0-9]{3,}")


def _forms() -> dict[str, list[str]]:
    """Each word of the glossary and its words in the other language."""
    forms: dict[str, list[str]] = {}
    for chinese, englishes in GLOSSARY:
        forms.setdefault(chinese, []).extend(englishes)
        for english in englishes:
            forms.setdefault(english, []).append(chinese)
    return forms


FORMS = _forms()


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-glossary-") as (_, mem):
        chunks = chunk_bodies(mem)
        words: dict[str, int] = {}
        for _, body in chunks:
            for w in set(_WORD.findall(body)):
                words[w] = words.get(w, 0) + 1
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        held = 0
        for form, others in sorted(FORMS.items()):
            holds = term_matcher(form)
            naming = [(key, body) for key, body in chunks if holds(body)]
            if not naming:
                continue
            held += 1
            # the rarest word of 4+ letters beside it in the first chunk writing it
            _, body = naming[0]
            beside = [w for w in set(_WORD.findall(body)) if w not in form and words[w] > 1]
            if not beside:
                continue
            word = min(beside, key=lambda w: (words[w], w))
            with_word = term_matcher(word)
            found = {k for k, b in naming if with_word(b)}
            for other in others:
                if any(term_matcher(other)(b) for _, b in chunks):
                    continue  # memory writes this form too
                asked.ask_frames(FRAMES, f"{form} as {other}", found, form=other, word=word)
    asked.print(f"{held} forms memory writes")
    write_missed(args, "glossary", asked, forms=held)
    return 0


if __name__ == "__main__":
    sys.exit(main())
