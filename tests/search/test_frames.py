"""The words of a question asking memory to look, not what to look for (memdir.search.frames)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdir import Memory
from memdir.search.frames import memory_frames

from .helpers import write_notes


@pytest.mark.parametrize(
    ("query", "frames"),
    [
        ("What do my notes say about Kafka?", ["What do my notes say about"]),
        ("Search my memory for Kafka", ["Search my memory for"]),
        ("Check my notes for the pgbouncer change", ["Check my notes for"]),
        ("Look up Kafka in my notes", ["in my notes"]),
        ("帮我查一下笔记里关于Kafka的记录", ["帮我查一下", "笔记里关于", "的记录"]),
        ("我的笔记中有没有关于 Kafka 的内容？", ["我的笔记中有没有关于", "的内容"]),
        ("Kafkaについてのメモある？", ["についてのメモある"]),
        ("メモに Kafka ってある？", ["メモに"]),
        # or to sum up what it holds
        ("介绍一下Kafka", ["介绍一下"]),
        ("Kafka相关的信息", ["相关的信息"]),
        ("Give me an overview of Kafka", ["Give me an overview of"]),
        ("Any notes on Kafka?", ["Any notes on"]),
        ("Kafkaについて教えて", ["について教えて"]),
        ("Kafkaの情報", ["の情報"]),
        # or whether it remembers: the phrases leave the text embedded too
        ("你还记得Kafka吗？", ["你还记得"]),
        ("我之前有没有提到过Kafka？", ["我之前有没有提到过"]),
        ("Kafkaのこと覚えてる？", ["のこと覚えてる"]),
        ("Do you remember Kafka?", ["Do you remember"]),
        ("Did I ever mention Kafka?", ["Did I ever mention"]),
    ],
)
def test_words_asking_memory_to_look(query: str, frames: list[str]) -> None:
    assert [query[a:b] for a, b in memory_frames(query)] == frames


@pytest.mark.parametrize(
    "query",
    [
        "MEMORY_LIMIT_EXCEEDED 是什么",  # memory alone is an engineer's word
        "What is the memory limit of the backfill?",
        "Where are the release notes of v1.14?",
        "会议的记录在哪？",  # the record asked for, not the words asking
        "What did Wang Tao say about RabbitMQ?",
        "What is the summary field of the invoice?",
        "相关性分析",
        "What does Joanna do to remember happy memories?",  # LoCoMo: what she does
        "Which TV series does Tim mention watching?",
    ],
)
def test_words_about_the_subject_are_kept(query: str) -> None:
    assert memory_frames(query) == []


def test_a_question_asking_memory_to_look_finds_the_subject(tmp_path: Path) -> None:
    # the note about notes, memory and records held the question's heaviest words
    ws = write_notes(
        tmp_path,
        {
            "memory/2026-08-06.md": "# 2026-08-06\n\n### 11:00 - broker\nKafka 太重了，选了 NATS。\n",
            "memory/2026-08-07.md": (
                "# 2026-08-07\n\n- 整理笔记里的记录，查一下旧内容。介绍一下相关的信息。\n"
                "- Cleaned up my notes; what the memory say about tooling.\n"
                "- 会議メモに残っている内容を確認した。\n"
            ),
            **{
                f"memory/2026-09-{d:02d}.md": f"# 2026-09-{d:02d}\n\n- standup, review {d}\n"
                for d in range(1, 6)
            },
        },
    )
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        for query in (
            "帮我查一下笔记里关于 Kafka 的记录",
            "What do my notes say about Kafka?",
            "Kafka についてのメモある？",
            "介绍一下 Kafka 相关的信息",
        ):
            hits = mem.search(query)
            assert [h.path for h in hits[:1]] == ["memory/2026-08-06.md"], query
