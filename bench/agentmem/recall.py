"""Every chunk's rarest word, asked as people ask an agent whether it remembers something: is a
chunk holding the word among the first three results of each mode?

    python bench/agentmem/recall.py [--memory engineer|designer] [--modes keyword,vector,hybrid]

Users talk to an agent's memory as to a person: "你还记得 Kafka 吗？", "Do you remember the
pgbouncer change?", "Kafka のこと覚えてる？", "我之前有没有提到过 Kafka？". The words of that frame
(记得, remember, 覚えてる, 提到过, mention) are about memory itself, not about what a note holds;
a note never writes them about its subject; so do the phrases asking it to look in its notes
("What do my notes say about …?", 帮我查一下) or to sum up what it holds ("Give me an overview
of …", 介绍一下, 相关的信息). Each chunk's rarest word (``probes.rarest_word``: a word of four
letters or more that two chunks or more hold) is asked once, in fifteen frames. A
hit is a result holding the word. It uses no question of the bench, so it is no test half. No
score floor. Writes ``bench/results/agentmem[-designer]-recall.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from probes import (  # noqa: E402
    Asked,
    chunk_bodies,
    chunks_holding,
    indexed_copy,
    probe_arguments,
    rarest_word,
    word_counts,
    write_missed,
)

FRAMES = (
    "你还记得{w}吗？",
    "Do you remember {w}?",
    "{w}のこと覚えてる？",
    "我之前有没有提到过{w}？",
    "Did I ever mention {w}?",
    # or asks it to look in its notes
    "帮我查一下笔记里关于{w}的记录",
    "What do my notes say about {w}?",
    "{w}についてのメモある？",
    "Search my memory for {w}",
    # or to sum up what it holds
    "介绍一下{w}",
    "总结一下{w}",
    "{w}相关的信息",
    "Give me an overview of {w}",
    "Any notes on {w}?",
    "{w}の情報",
)
TOP = 3


def main() -> int:
    args = probe_arguments(__doc__)
    with indexed_copy(args.memory, args.provider, "memdir-recall-") as (_, mem):
        chunks = chunk_bodies(mem)
        counts = word_counts(chunks)
        asked = Asked(mem, args.modes, list(FRAMES), TOP)
        words: list[str] = []
        for _, body in chunks:
            word = rarest_word(body, counts)
            if word is None or word in words:
                continue
            words.append(word)
            asked.ask_frames(FRAMES, word, chunks_holding(chunks, [word]), w=word)
    asked.print(f"{len(words)} words")
    write_missed(args, "recall", asked, words=words)
    return 0


if __name__ == "__main__":
    sys.exit(main())
