"""Every short form engineers write that a memory holds (``prod``, ``DB``, ``PG``, ``k8s``,
``DLQ``) asked by what it stands for, and every long form asked by its short one: is a chunk
writing it as the notes do among the first three results?

    python bench/agentmem/abbreviations.py [--memory engineer|designer] [--modes ...]

Notes write ``prod DB 切到 PG 16``; a question, by a person or an agent, says "the production
database" and "Postgres". The forms are those of :data:`memdir.text.abbreviations.ABBREVIATIONS`
that some chunk writes as a word; each is asked as each other form no chunk writes, in three
frames with a word of a chunk holding it (the rarest other word of the first such chunk, so
that the question is about something), and a hit is a chunk holding both that word and the
form as the notes write it. It uses no question of the bench, so it is no test half. No score
floor. Writes ``bench/results/agentmem[-designer]-abbreviations.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import ask_other_forms  # noqa: E402

from memdir.text.abbreviations import FORMS  # noqa: E402

if __name__ == "__main__":
    sys.exit(ask_other_forms(__doc__ or "", "abbreviations", FORMS))
