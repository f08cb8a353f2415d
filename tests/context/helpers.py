"""A long synthetic bilingual conversation, fake summarisers and store checks for the context
tests. The conversation is generated (seeded), not read from the benchmark data: tests never
read ``../shared/bench``."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from memdir.context.store import LcmStore, MessageRow, NewMessage
from memdir.llm.chat import ChatResult

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z

_EN = (
    "We should move the billing export to the new cluster before Friday.",
    "Caroline said the adoption agency called back about the interview on 2026-03-14.",
    "The deploy of relay v1.13.2 failed on the canary; rollback took four minutes.",
    "I prefer tea in the morning and coffee after lunch, honestly.",
    "Remember that OPS-2231 is blocked on the vendor's API key rotation.",
    "Melanie ran a charity race last weekend and raised 800 dollars!",
    "Can you summarise what we decided about the Postgres migration?",
    "Sure, ok, thanks.",
    "The invoice renderer now uses the narwhal exporter; numbers look right.",
    "Let's meet at the cafe on Rue Oberkampf at 3 pm.",
)
_ZH = (
    "我们决定下周五之前把数据库迁移到新集群。",
    "周末去了杭州，西湖边的龙井茶很好喝。",
    "发布计划推迟到三月十四日，因为测试还没通过。",
    "他说项目预算增加了百分之二十，需要重新审批。",
    "明天上午十点开会讨论缓存方案，记得带上性能数据。",
    "好的，谢谢！",
    "我更喜欢用 Helix 编辑器，配置简单。",
    "客户反馈登录页面太慢，要排查一下 CDN。",
)


def conversation(n: int, *, seed: int = 13) -> list[NewMessage]:
    """``n`` alternating user/assistant messages, English and Chinese mixed, with the odd long
    message, odd characters (emoji, tabs, CRLF, trailing spaces) and a few empty ones."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        parts = rng.choices(_EN + _ZH, k=rng.choice((1, 1, 2, 3)))
        text = " ".join(parts)
        roll = rng.random()
        if roll < 0.03:
            text = "\n".join(rng.choices(_EN + _ZH, k=40))  # a long one
        elif roll < 0.06:
            text = f"  {text}\r\n\ttabbed 🙂 ＡＢＣ１２３  "
        elif roll < 0.07:
            text = ""
        role = "user" if i % 2 == 0 else "assistant"
        content = f"[{i}] {text}" if text else ""
        out.append(NewMessage(role, content, T0 + i * 30_000, f"m{i}"))
    return out


def recovered(store: LcmStore, conversation: str) -> list[MessageRow]:
    """Every message the context accounts for, in context order: the raw items and, for each
    summary item, the messages it expands to."""
    out: list[MessageRow] = []
    for item in store.items(conversation):
        if item.is_message:
            out.append(store.message(int(item.ref)))
        else:
            out.extend(store.covered_messages(item.ref))
    return out


@dataclass
class FakeModel:
    """A chat model that answers ``behaviour``: ``fail`` (raises), ``echo`` (its input),
    ``grow`` (its input twice), ``hang`` (sleeps ``hang_s``), ``good`` (a short summary)."""

    behaviour: str
    hang_s: float = 30.0
    provider: str = "fake"
    model: str = "fake-1"
    calls: int = 0

    def complete(self, messages: Sequence[object], **kwargs: object) -> ChatResult:
        self.calls += 1
        text = str(messages[-1]["content"])  # type: ignore[index]
        if self.behaviour == "fail":
            raise RuntimeError("the summariser is down")
        if self.behaviour == "hang":
            time.sleep(self.hang_s)
        if self.behaviour == "echo":
            return ChatResult(text, self.model, self.provider)
        if self.behaviour == "grow":
            return ChatResult(text + "\n" + text, self.model, self.provider)
        first = text.splitlines()[0][:80]
        summary = f"- summary of {len(text)} chars: {first}"
        return ChatResult(summary, self.model, self.provider)  # no usage: memdir estimates it

    def close(self) -> None:
        pass

    def __enter__(self) -> FakeModel:
        return self

    def __exit__(self, *exc: object) -> None:
        pass
