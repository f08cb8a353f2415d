"""The system-prompt section (spec §10.3, case 96) and ``memdir prompt``."""

from __future__ import annotations

import pytest

from memdir.errors import UsageError
from memdir.prompt import memory_prompt, memory_prompt_lines

BOTH = ["memory_search", "memory_get"]


def test_no_tools_no_section() -> None:
    assert memory_prompt_lines(tools=[]) == []
    assert memory_prompt(tools=[]) == ""


def test_both_tools() -> None:
    lines = memory_prompt_lines(tools=BOTH)
    assert lines[0] == "## Memory Recall"
    text = "\n".join(lines)
    assert "memory_search" in text and "then use memory_get" in text
    assert "MEMORY.md + memory/*.md" in text
    assert (
        lines[-2]
        == "Citations: include Source: <path#line> when it helps the user verify memory snippets."
    )
    assert lines[-1] == ""
    assert "memory_write" not in text


def test_search_only_and_get_only() -> None:
    search = "\n".join(memory_prompt_lines(tools=["memory_search"]))
    assert "answer from the matching results" in search and "memory_get" not in search
    get = "\n".join(memory_prompt_lines(tools=["memory_get"]))
    assert "already point to a specific memory file or note" in get
    assert "memory_search" not in get


def test_citations_off() -> None:
    lines = memory_prompt_lines(tools=BOTH, citations="off")
    assert lines[-2] == (
        "Citations are disabled: do not mention file paths or line numbers in replies unless "
        "the user explicitly asks."
    )


def test_write_guidance() -> None:
    text = memory_prompt()
    assert "memory_write" in text
    assert 'target "daily"' in text and "memory/YYYY-MM-DD.md" in text
    assert 'target "long_term"' in text and "MEMORY.md" in text
    assert "secret" in text and "absolute dates" in text
    only_write = memory_prompt_lines(tools=["memory_write"])
    assert only_write[0] == "## Memory" and only_write[-1] == ""
    assert not any(line.startswith("Citations") for line in only_write)


def test_group_scope_leaves_long_term_memory_out() -> None:
    text = memory_prompt(scope="group")
    assert "run memory_search on memory/*.md;" in text
    assert "not available in this session" in text
    assert "MEMORY.md + " not in text


def test_sessions_are_mentioned_when_indexed() -> None:
    assert "indexed session transcripts" in memory_prompt(sessions=True)
    assert "indexed session transcripts" not in memory_prompt()


@pytest.mark.parametrize(
    "kwargs",
    [{"tools": ["memory_delete"]}, {"citations": "auto"}, {"scope": "public"}],
)
def test_bad_arguments(kwargs: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        memory_prompt(**kwargs)  # type: ignore[arg-type]
