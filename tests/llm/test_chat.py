"""Messages, results and the silent NO_REPLY answer (spec §11.3)."""

from __future__ import annotations

import pytest

from memdir.errors import UsageError
from memdir.llm import ChatResult, Message, is_silent_reply
from memdir.llm.chat import as_messages


@pytest.mark.parametrize(
    "text",
    ["NO_REPLY", "no_reply", "  NO_REPLY \n", '{"action":"NO_REPLY"}', '{ "action": "no_reply" }'],
)
def test_silent_replies(text: str) -> None:
    assert is_silent_reply(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "NO_REPLY.",
        "NO_REPLY because nothing",
        "Stored: NO_REPLY",
        '{"action": "reply"}',
        "{bad",
    ],
)
def test_replies_that_are_not_silent(text: str) -> None:
    assert not is_silent_reply(text)


def test_a_result_is_silent_when_empty_or_no_reply_and_truncated_at_length() -> None:
    assert ChatResult("", "m", "p").silent
    assert ChatResult(" NO_REPLY ", "m", "p").silent
    assert not ChatResult("Saved.", "m", "p").silent
    result = ChatResult("x", "m", "p", 3, 1, "length")
    assert result.truncated
    assert result.to_dict() == {
        "text": "x",
        "model": "m",
        "provider": "p",
        "input_tokens": 3,
        "output_tokens": 1,
        "finish_reason": "length",
        "tool_calls": (),
    }


def test_as_messages_accepts_messages_mappings_and_text_blocks() -> None:
    got = as_messages(
        [
            Message("system", "be brief"),
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, "b", {"type": "tool_use"}],
            },
        ]
    )
    assert got == [
        Message("system", "be brief"),
        Message("user", "hi"),
        Message("assistant", "a\nb"),
    ]


@pytest.mark.parametrize(
    "bad",
    [
        "hello",
        {"role": "user", "content": "x"},
        [{"role": "tool", "content": "x"}],
        [{"content": "x"}],
        [3],
        [{"role": "user"}],
    ],
)
def test_as_messages_refuses_what_is_not_a_list_of_messages(bad: object) -> None:
    with pytest.raises(UsageError):
        as_messages(bad)  # type: ignore[arg-type]
