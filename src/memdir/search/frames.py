"""The words of a question that ask memory to look, not what to look for.

Users ask an agent's memory as they would a person or a notebook: "What do my notes say about
pgbouncer?", "Search my memory for the Kafka decision", "帮我查一下笔记里关于 Kafka 的记录",
"Kafka についてのメモある？", to sum up what it holds: "Give me an overview of relay",
"介绍一下 relay", "Kafka 相关的信息", or whether it remembers: "Do you remember the Kafka
decision?", "我之前有没有提到过 Kafka？", "Kafka のこと覚えてる？" (their single words are stop
and function words of the query's terms already; as phrases they leave the text embedded
too). Notes, memory, 笔记, 记录 and メモ there are about memory itself; a note never writes them
about its subject, and as terms they weighed against every note that
answers (the designer's memory heads sections ``## メモ``, so `…についてのメモある？` was answered
by them). :func:`memory_frames` finds those spans, which search leaves out of the question's
terms. Only as phrases: "memory" alone is an engineer's word (``MEMORY_LIMIT_EXCEEDED``, a
memory leak), and "notes" too (release notes).
"""

from __future__ import annotations

import re

__all__ = ["memory_frames"]

_FRAMES = re.compile(
    # English: what do my notes say about, search my memory for, in my notes, look up in my …
    r"(?ai:\b(?:what\s+(?:do|did|does)\s+(?:my|the|your)\s+(?:notes|memory|memories)\s+say"
    r"(?:\s+(?:about|on|of))?|"
    r"(?:search|look|check|find|dig)(?:\s+(?:up|through|in|into))?\s+(?:my|the|your)\s+"
    r"(?:notes|memory|memories|logs)(?:\s+(?:for|about|on))?|"
    r"(?:in|from)\s+(?:my|your)\s+(?:notes|memory|memories)|"
    r"(?:my|your)\s+(?:notes|memory|memories)\s+(?:on|about|for)|"
    r"any\s+notes\s+(?:on|about)|"
    # … or to sum up what it holds: give me an overview of, summarize, a recap of
    r"(?:give\s+me\s+)?(?:an?\s+)?(?:overview|summary|rundown|recap)\s+of|"
    r"summari[sz]e(?:\s+what\s+(?:I|we)\s+(?:know|have)\s+(?:about|on))?|"
    # … or whether it remembers: do you remember, did I ever mention
    r"(?:do|did)\s+you\s+(?:still\s+)?(?:remember|recall)|"
    r"(?:did|have)\s+(?:I|we)\s+(?:ever\s+)?mention(?:ed)?)\b)"
    # Chinese: 你还记得, 我之前有没有提到过; 帮我查一下, 笔记里关于 … 的记录, 我的笔记中
    r"|你还记得|还记得|记不记得|(?:我|我们)?(?:之前)?有没有(?:提到|提起|说起)过|提到过|提起过|说起过|"
    r"帮我查一下|帮我查查|帮我查|帮我找一下|帮我找|查一下|查查|翻一下|"
    r"介绍一下|介绍下|总结一下|总结下|概括一下|梳理一下|讲讲|说说|"
    r"相关的?(?:信息|内容|记录|情况)|"
    r"(?:我的)?(?:笔记|记录|记忆)(?:里|中|里面|当中)(?:有没有)?(?:关于)?|"
    r"的(?:记录|笔记|内容|信息|情况)(?=[\s?？。!！]*$)|"
    # Japanese: …のこと覚えてる？ …についてのメモある？ メモに … ある？
    r"の?こと(?:を)?覚えて(?:る|います|いますか|ますか)?|覚えて(?:る|います|いますか|ますか)|"
    r"(?:について|に関する)?の?メモ(?:は|に|で)?(?:ある|あります|ない|残って)"
    r"(?:る|ます|ますか|か|っけ)?|メモ(?:に|で)(?:は)?|"
    r"について教えて(?:ください)?|の情報(?:を|は)?(?=[\s?？。!！]*$)",
)


def memory_frames(query: str) -> list[tuple[int, int]]:
    """The spans of ``query`` that ask memory to look rather than say what to look for (see
    the module), to be left out of its terms; none when it has none."""
    return [m.span() for m in _FRAMES.finditer(query) if m.end() > m.start()]
