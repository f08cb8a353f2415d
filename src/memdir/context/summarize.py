"""Writing one summary, bounded: a model call that fails, hangs or answers too long is never
the end of it.

:meth:`Summarizer.summarize` escalates in three steps, as lossless-claw does, with limits it
lacked: (1) the depth's prompt, (2) once more with a stricter prompt and half the target, (3) a
*truncated extract*: the offline :class:`~memdir.llm.ExtractiveSummarizer`'s key sentences cut
to a budget below the input (the input's head when no sentence is worth keeping). An answer
counts as failed when the call raises, returns nothing or ``NO_REPLY``, or is not shorter than
its input, or is over twice its target (or the room its caller has). Each call runs in a worker thread and is abandoned after
``timeout_s`` (the client gets the same limit), so a summariser that never answers costs at most
two timeouts per summary. :class:`Spend` counts calls and tokens across a whole compaction;
once its caps are reached the model is not called again and step 3 writes the summaries, so a
compaction still makes progress at no cost. With no model configured, step 1 is the extract.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memdir.context.tokens import TokenCounter, cut_to_tokens
from memdir.llm.chat import ChatResult
from memdir.llm.extractive import ExtractiveSummarizer

__all__ = ["CONDENSED_PROMPT", "LEAF_PROMPT", "STRICT_PROMPT", "Spend", "Summarizer", "Summary"]

log = logging.getLogger(__name__)

EXTRACT_LINE_CHARS = 2000
"""Each line of a summary's input is cut to this many characters before extraction."""

LEAF_PROMPT = (
    "You compress part of a conversation for the assistant's own working memory: your summary "
    "replaces these messages in its context, and the originals stay retrievable by id. Keep "
    "every decision, fact, name, number, date, identifier (paths, tickets, versions, commands), "
    "preference and open task; drop greetings and filler. Write in the language(s) the "
    "conversation uses, as short lines, oldest first. At most {target} tokens. Reply with the "
    "summary only."
)
CONDENSED_PROMPT = (
    "These are summaries of consecutive parts of one conversation, oldest first. Merge them "
    "into one summary one level more abstract: keep the decisions, facts, names, numbers, "
    "dates, identifiers and open tasks that still matter, drop what later parts superseded. "
    "Write in the language(s) they use, as short lines. At most {target} tokens. Reply with the "
    "summary only."
)
STRICT_PROMPT = (
    "\n\nYour previous answer was unusable (it failed, was empty, or was too long). Hard limit: "
    "{target} tokens (about {chars} characters). Only the most important facts, one per line."
)


@dataclass
class Spend:
    """Model calls and tokens spent by one compaction, against its caps (0: no model calls)."""

    max_calls: int
    max_tokens: int
    calls: int = 0
    tokens: int = 0

    def allows(self, estimate: int) -> bool:
        return self.calls < self.max_calls and self.tokens + estimate <= self.max_tokens


@dataclass
class Summary:
    """A summary's text and how it was made: ``kind`` is ``model``, ``strict`` (the second
    prompt), ``extract`` (no model) or ``truncated`` (the last resort)."""

    content: str
    kind: str
    model: str
    input_tokens: int
    tokens: int
    attempts: int = 0
    warnings: list[str] = field(default_factory=list)


class Summarizer:
    """Summaries from ``model`` (a :class:`~memdir.llm.ChatModel`; ``None`` or the extractive
    fallback: extracts only), each call limited to ``timeout_s``. ``factory`` creates the
    model on the first summary instead."""

    def __init__(
        self,
        model: Any = None,
        *,
        counter: TokenCounter,
        timeout_s: float = 60.0,
        factory: Callable[[], Any] | None = None,
    ) -> None:
        self.model = model
        self.counter = counter
        self.timeout_s = timeout_s
        self._factory = factory if model is None else None
        self._extractor = ExtractiveSummarizer(reason="context compaction")

    @property
    def extractive(self) -> bool:
        """Whether summaries are extracts (no model, or the extractive fallback)."""
        self._resolve()
        return self.model is None or isinstance(self.model, ExtractiveSummarizer)

    def _resolve(self) -> None:
        """Create the model from ``factory`` on first use (a compaction with nothing to do
        never creates a client)."""
        if self._factory is not None:
            factory, self._factory = self._factory, None
            self.model = factory()

    @property
    def name(self) -> str:
        if self.extractive:
            return "extractive"
        return f"{getattr(self.model, 'provider', '?')}/{getattr(self.model, 'model', '?')}"

    def summarize(
        self, text: str, *, depth: int, target: int, spend: Spend, limit: int | None = None
    ) -> Summary:
        """A summary of ``text`` (a rendered run of messages, or of summaries), aiming at
        ``target`` tokens and never over ``limit`` (default: twice the target)."""
        count = self.counter.count
        size = count(text)
        limit = min(limit if limit is not None else 2 * target, 2 * target)
        warnings: list[str] = []
        if self.extractive:
            content = self._extract(text, target)
            if self._usable(content, size, limit):
                return Summary(content, "extract", "extractive", size, count(content))
        else:
            prompt = (LEAF_PROMPT if depth == 0 else CONDENSED_PROMPT).format(target=target)
            for attempts, (kind, system, goal, temperature) in enumerate(
                (
                    ("model", prompt, target, 0.2),
                    ("strict", prompt + STRICT_PROMPT, max(target // 2, 1), 0.0),
                ),
                start=1,
            ):
                system = system.format(target=goal, chars=goal * 4)
                if not spend.allows(size + goal):
                    warnings.append(
                        f"model spend cap reached ({spend.calls} calls, {spend.tokens} tokens); "
                        "summarising without the model"
                    )
                    break
                content, problem = self._ask(text, system, goal, temperature, size, spend)
                if problem is None and self._usable(content, size, limit):
                    return Summary(
                        content, kind, self.name, size, count(content), attempts, warnings
                    )
                warnings.append(f"summary attempt {attempts} ({kind}): {problem or 'unusable'}")
        budget = max(1, min(target, size // 2, limit))
        content = self._cut(self._extract(text, budget), budget) or self._cut(text, budget)
        warnings.append(f"wrote a truncated extract of {count(content)} tokens")
        return Summary(content, "truncated", "extractive", size, count(content), 0, warnings)

    def _usable(self, content: str, size: int, limit: int) -> bool:
        tokens = self.counter.count(content)
        return bool(content.strip()) and tokens < size and tokens <= limit

    def _ask(
        self, text: str, system: str, goal: int, temperature: float, size: int, spend: Spend
    ) -> tuple[str, str | None]:
        """One model call in a worker thread: its text and ``None``, or ``""`` and the problem."""
        spend.calls += 1
        messages = [{"role": "user", "content": text}]

        def call() -> ChatResult:
            return self.model.complete(  # type: ignore[no-any-return]
                messages,
                system=system,
                max_tokens=max(goal * 2, 16),
                temperature=temperature,
                timeout=self.timeout_s,
            )

        try:
            result = _with_timeout(call, self.timeout_s)
        except TimeoutError:
            spend.tokens += size
            return "", f"no answer within {self.timeout_s:g} s"
        except Exception as exc:  # a summariser's failure must never stop compaction
            spend.tokens += size
            return "", f"{type(exc).__name__}: {exc}"
        spend.tokens += (result.input_tokens or size) + (
            result.output_tokens or self.counter.count(result.text)
        )
        if result.silent:
            return "", "empty answer"
        content = result.text.strip()
        tokens = self.counter.count(content)
        if tokens >= size:
            return "", f"{tokens} tokens, not shorter than its {size}-token input"
        return content, None

    def _extract(self, text: str, budget: int) -> str:
        # The extractor scores every sentence with regexes that slow down badly on very long
        # unbroken lines (50k characters: 11 s); it keeps sentences of at most 400 anyway.
        lines = (line[:EXTRACT_LINE_CHARS] for line in text.splitlines())
        result = self._extractor.summarize("\n".join(lines), max_chars=max(budget * 4, 16))
        return self._cut(result.text.strip(), budget)

    def _cut(self, text: str, budget: int) -> str:
        return cut_to_tokens(text, budget, self.counter.count)


def _with_timeout(func: Callable[[], ChatResult], timeout: float) -> ChatResult:
    """``func()`` in a daemon thread; :class:`TimeoutError` when it has not returned in
    ``timeout`` seconds (the thread is abandoned: a hung client cannot hold up compaction)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = func()
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, name="memdir-lcm-summary", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise TimeoutError
    if "error" in box:
        raise box["error"]
    return box["result"]  # type: ignore[no-any-return]
