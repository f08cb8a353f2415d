"""Guarantee 2, recall: 100 needle facts planted at random positions of a long conversation,
half English and half Chinese, are each found by lcm_grep after compaction, and lcm_expand of
the summary covering a needle returns it."""

from __future__ import annotations

import random
from pathlib import Path

from context.helpers import conversation
from memdir.config import load_config
from memdir.context.compaction import ContextSettings
from memdir.context.lcm import LosslessContext
from memdir.context.store import NewMessage

_HAN = "翡翠琥珀玛瑙珊瑚水晶松柏梧桐芙蓉牡丹芍药海棠茉莉丁香杜鹃紫藤凌霄蔷薇木槿山茶"


def _needles(rng: random.Random) -> list[tuple[str, str]]:
    """(message text, what to grep for): 50 English codes, 50 Chinese passphrases."""
    out = []
    for n in range(50):
        code = f"KX{rng.randrange(10_000, 99_999)}"
        out.append((f"By the way, the locker {n} code is {code}, don't forget it.", code))
    for n in range(50):
        phrase = "".join(rng.sample(_HAN, 4))
        out.append((f"顺便说一下，第{n}号仓库的门禁口令是「{phrase}」，别忘了。", phrase))
    return out


def test_every_needle_is_found_and_expanded(tmp_path: Path) -> None:
    rng = random.Random(7)
    messages = conversation(3000, seed=3)
    needles = _needles(rng)
    positions = sorted(rng.sample(range(len(messages) - 80), len(needles)))  # none in the tail
    planted = {}
    for (text, probe), at in zip(needles, positions, strict=True):
        old = messages[at]
        messages[at] = NewMessage(old.role, text, old.created_ms, old.ext_id)
        planted[probe] = text
    (tmp_path / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    config = load_config(tmp_path, overrides={"embedding.provider": "none"})
    settings = ContextSettings(window_tokens=4096, leaf_tokens=1500)
    with LosslessContext(config, settings=settings) as lcm:
        working = lcm.working("needles")
        for start in range(0, len(messages), 25):
            working.extend(messages[start : start + 25])
            working.compact()
        assert lcm.store.depth_counts("needles")[1] > 0
        cache: dict[str, list[str]] = {}
        for probe, text in planted.items():
            found = lcm.grep(probe, scope="messages", sort="relevance", limit=5)
            hits = [h for h in found["results"] if h["snippet"] == text]
            assert hits, f"lcm_grep did not find {probe!r}: {found['results'][:2]}"
            leaf = hits[0]["summary"]
            assert leaf is not None, f"{probe!r} was never compacted"
            # lcm_expand of the covering summary returns the needle, exactly
            page = lcm.expand(leaf)
            assert text in [m["content"] for m in page["messages"]]
            # ... and so does the top-level summary above it, page by page
            top = leaf
            while (parent := lcm.describe(top)["parent"]) is not None:
                top = parent
            assert text in _expand_all(lcm, top, cache)
        # regex mode finds the English codes too
        codes = lcm.grep(r"KX\d{5}", mode="regex", scope="messages", limit=200)
        assert {h["snippet"] for h in codes["results"]} == {
            t for p, t in planted.items() if p.startswith("KX")
        }


def _expand_all(lcm: LosslessContext, sid: str, cache: dict[str, list[str]]) -> list[str]:
    if sid not in cache:
        contents: list[str] = []
        offset: int | None = 0
        while offset is not None:
            page = lcm.expand(sid, max_tokens=2000, offset=offset)
            assert page["messages"] and page["tokens"] <= max(2000, page["messages"][0]["tokens"])
            contents.extend(m["content"] for m in page["messages"])
            offset = page["next_offset"]
        assert contents == [m.content for m in lcm.store.covered_messages(sid)]  # = the DAG walk
        cache[sid] = contents
    return cache[sid]
