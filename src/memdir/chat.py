"""``memdir chat``'s loop: a conversation with the configured model, which may call the memory
tools, recorded through a :class:`~memdir.sessions.Session`.

Each user line is recorded and sent with the tools (``memory_search``, ``memory_get``,
``memory_write``, and ``lcm_grep``, ``lcm_describe``, ``lcm_expand`` bound to this session) in
the client's format; the model's tool calls are run by :class:`~memdir.tools.MemoryTools` and
their answers sent back, at most :data:`MAX_TOOL_ROUNDS` rounds a turn.

The context is the session's lossless context (:mod:`memdir.context`, window
``--context-tokens``, else ``context.window_tokens``): every message is stored, and before a
line is sent :meth:`Session.compact <memdir.sessions.Session.compact>` runs when the context
has reached ``context.trigger`` (the memory flush first). After a compaction the conversation
sent is rebuilt from the assembly: the summaries go into the system prompt, the newest raw
messages follow as text turns. The pre-compaction flush of the capture issue stays as a second
guard: when :meth:`Session.should_flush <memdir.sessions.Session.should_flush>` says the prompt
the model reported is near its window, the session flushes and compacts at once.
``/new`` and ``/reset`` end the session (the session-memory hook) and start a new one;
``/quit`` or ``/exit`` (or the end of input) leave, the session left open for ``--session``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memdir.errors import LLMError
from memdir.sessions.session import Session

__all__ = ["CHAT_TOOLS", "KEEP_TURNS", "MAX_TOOL_ROUNDS", "SYSTEM_PROMPT", "run_chat"]

CHAT_TOOLS = (
    "memory_search",
    "memory_get",
    "memory_write",
    "lcm_grep",
    "lcm_describe",
    "lcm_expand",
)
"""The tools ``memdir chat`` offers its model."""

MAX_TOOL_ROUNDS = 6
"""Tool-call rounds in one turn before the loop stops asking the model."""
KEEP_TURNS = 2
"""User turns (with their answers) a forced compaction keeps when the lossless context had
nothing to summarise (every message still in its fresh tail)."""
SYSTEM_PROMPT = (
    "You are a helpful assistant with a long-term memory kept in Markdown files. "
    "Search it before answering questions about the user, past work or decisions, "
    "and write durable facts the user tells you to remember."
)
EXIT_NO_MODEL = 2


def run_chat(
    memory: Any,
    *,
    read: Callable[[str], str | None],
    write: Callable[[str], None],
    note: Callable[[str], None],
    session_id: str | None = None,
    context_tokens: int | None = None,
    model: Any = None,
) -> int:
    """Run the loop until ``/quit`` or the end of input; the exit code (2: no usable model).

    ``read(prompt)`` returns the next line (``None`` at the end), ``write`` prints the
    model's answers, ``note`` the loop's own messages (to stderr in the CLI)."""
    from memdir.llm.extractive import ExtractiveSummarizer
    from memdir.llm.providers import create_chat_model
    from memdir.tools import MemoryTools

    owned = model is None
    model = model if model is not None else create_chat_model(memory.config)
    try:
        if isinstance(model, ExtractiveSummarizer) or not hasattr(model, "complete_with_tools"):
            reason = getattr(model, "reason", "") or "the configured model cannot call tools"
            note(f"memdir chat needs a chat model: {reason}. `memdir replay FILE` works offline.")
            return EXIT_NO_MODEL
        _set_window(memory, context_tokens)
        session = Session(memory, llm=model, session_id=session_id, source="chat")
        tools = MemoryTools(memory, tools=CHAT_TOOLS, session=session.session_id)
        base_system = f"{SYSTEM_PROMPT}\n\n{tools.prompt()}"
        schemas = tools.schemas(model.tool_format)
        context, system = _rebuild(session, model, base_system)
        last_prompt: int | None = None
        note(
            f"memdir chat with {model.provider}/{model.model}, session {session.session_id} "
            "(/new to end it, /quit to leave)"
        )
        while True:
            line = read("you> ")
            if line is None:
                break
            text = line.strip()
            if not text:
                continue
            command = text.split()[0].lower()
            if command in ("/quit", "/exit"):
                break
            if command in ("/new", "/reset"):
                result = session.end(reason=command[1:])
                if result.written:
                    note(f"session memory written to {result.path}")
                else:
                    note(f"session ended; nothing written ({result.skipped or 'no file'})")
                session.close()
                session = Session(memory, llm=model, source="chat")
                tools.session = session.session_id
                context, last_prompt, system = [], None, base_system
                note(f"new session {session.session_id}")
                continue
            if session.should_flush(last_prompt, pending=text, context_window=context_tokens):
                flushed = session.flush(reason="tokens")
                if flushed.written:
                    note(f"flushed to {flushed.path}:{flushed.start_line}-{flushed.end_line}")
                compacted = session.compact(force=True)
                if compacted.compacted:
                    context, system = _rebuild(session, model, base_system)
                else:
                    context = _compact(context)
                    session.compacted(tokens_before=last_prompt)
                last_prompt = None
            else:
                compacted = session.compact()
                if compacted.compacted:
                    note(
                        f"compacted {compacted.tokens_before} → {compacted.tokens_after} tokens "
                        f"({len(compacted.summaries)} summaries)"
                    )
                    context, system = _rebuild(session, model, base_system)
                    last_prompt = None
            user = model.user_turn(text)
            context.append(user)
            session.add(user)
            last_prompt = _turn(model, session, tools, context, schemas, system, write, note)
        session.close()
        note(f"left session {session.session_id} (resume with --session {session.session_id})")
        return 0
    finally:
        if owned:
            model.close()


def _turn(
    model: Any,
    session: Session,
    tools: Any,
    context: list[dict[str, object]],
    schemas: list[dict[str, Any]],
    system: str,
    write: Callable[[str], None],
    note: Callable[[str], None],
) -> int | None:
    """One user turn: ask, run the tools it calls, ask again; the last prompt's size."""
    prompt: int | None = None
    for _ in range(MAX_TOOL_ROUNDS):
        try:
            result = model.complete_with_tools(context, tools=schemas, system=system)
        except LLMError as exc:
            note(f"error: {exc.message}")
            return prompt
        prompt = result.input_tokens or prompt
        turn = model.assistant_turn(result)
        context.append(turn)
        usage = None
        if result.input_tokens is not None or result.output_tokens is not None:
            usage = {
                "prompt_tokens": result.input_tokens or 0,
                "completion_tokens": result.output_tokens or 0,
            }
        session.add(turn, usage=usage)
        if result.text.strip():
            write(result.text.strip())
        if not result.tool_calls:
            return prompt
        outputs = []
        for call in result.tool_calls:
            answer = tools.call(call.name, call.arguments)
            note(f"[{call.name}{' failed' if answer.is_error else ''}]")
            outputs.append((call, answer.to_json(), answer.is_error))
        for message in model.tool_results(outputs):
            context.append(message)
            session.add(message)
    note(f"stopped after {MAX_TOOL_ROUNDS} rounds of tool calls")
    return prompt


def _compact(context: list[dict[str, object]]) -> list[dict[str, object]]:
    """The context cut to its last :data:`KEEP_TURNS` user turns (a user message with text,
    not a tool answer), so no tool answer is left without its call."""
    starts = [
        i
        for i, m in enumerate(context)
        if m.get("role") == "user" and isinstance(m.get("content"), str)
    ]
    if len(starts) <= KEEP_TURNS:
        return context
    return context[starts[-KEEP_TURNS] :]


def _set_window(memory: Any, context_tokens: int | None) -> None:
    """``--context-tokens`` is the lossless context's window for this chat."""
    if context_tokens:
        from dataclasses import replace

        lcm = memory.lcm
        lcm.settings = replace(lcm.settings, window_tokens=context_tokens)


def _rebuild(session: Session, model: Any, system: str) -> tuple[list[dict[str, object]], str]:
    """The conversation to send from the session's lossless context: the summaries appended
    to the system prompt, the raw messages as plain text turns (tool calls and answers left
    out), starting with a user turn and alternating."""
    assembly = session.context(compact=False)
    turns: list[tuple[str, str]] = []
    for item in assembly.raw:
        if item.role not in ("user", "assistant") or not item.content.strip():
            continue
        if not turns and item.role != "user":
            continue
        if turns and turns[-1][0] == item.role:
            turns[-1] = (item.role, f"{turns[-1][1]}\n\n{item.content}")
        else:
            turns.append((item.role, item.content))
    out: list[dict[str, object]] = []
    for role, text in turns:
        out.append(model.user_turn(text) if role == "user" else _assistant_text(model, text))
    summaries = assembly.summary_text()
    return out, f"{system}\n\n{summaries}" if summaries else system


def _assistant_text(model: Any, text: str) -> Mapping[str, object] | dict[str, object]:
    from memdir.llm.chat import ChatResult

    return dict(model.assistant_turn(ChatResult(text, model.model, model.provider)))
