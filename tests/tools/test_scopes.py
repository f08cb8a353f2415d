"""Scopes (main / group / shared) and agent namespaces, checked on search and on get."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memdir.errors import ConfigError, UsageError
from memdir.tools import MemoryTools

from .helpers import FILES, LONG_TERM_AND_PRIVATE, SHARED, paths_found

ALICE = {"memory/agents/alice/notes.md"}
ALICE_LONG_TERM_AND_PRIVATE = {"memory/agents/alice/MEMORY.md", "memory/agents/alice/private/x.md"}

# (scope, agent) -> every path a search for "quokka" may return.
VISIBLE = {
    ("main", None): SHARED | LONG_TERM_AND_PRIVATE,
    ("group", None): SHARED,
    ("shared", None): SHARED,
    ("main", "alice"): SHARED | LONG_TERM_AND_PRIVATE | ALICE | ALICE_LONG_TERM_AND_PRIVATE,
    ("group", "alice"): SHARED | ALICE,
    ("main", "carol"): SHARED | LONG_TERM_AND_PRIVATE,
}


@pytest.mark.parametrize(("scope", "agent"), list(VISIBLE), ids=lambda v: str(v))
def test_search_and_get_agree_on_what_each_caller_sees(
    tools: MemoryTools, scope: str, agent: str | None
) -> None:
    visible = VISIBLE[(scope, agent)]
    assert paths_found(tools, scope=scope, agent_id=agent) == visible
    for rel in FILES:
        result = tools.call("memory_get", {"path": rel}, scope=scope, agent_id=agent)
        assert result.is_error == (rel not in visible), (rel, result.payload)


@pytest.mark.parametrize(
    ("scope", "agent", "path", "code"),
    [
        ("group", None, "MEMORY.md", "scope-long-term"),
        ("shared", None, "memory/private/diary.md", "scope-private"),
        ("group", None, "memory/marked.md", "scope-private"),
        ("main", None, "memory/agents/alice/notes.md", "other-agent"),
        ("main", "bob", "memory/agents/alice/notes.md", "other-agent"),
        ("group", "alice", "memory/agents/alice/MEMORY.md", "scope-long-term"),
        ("group", "alice", "memory/agents/alice/private/x.md", "scope-private"),
        ("group", None, "memory.md", "scope-long-term"),
        ("group", None, "memory/private/not-yet-written.md", "scope-private"),
    ],
)
def test_get_refusals_have_their_own_code(
    tools: MemoryTools, scope: str, agent: str | None, path: str, code: str
) -> None:
    payload = tools.call("memory_get", {"path": path}, scope=scope, agent_id=agent).payload
    assert payload["code"] == code
    assert payload["text"] == "" and "quokka" not in json.dumps(payload)


def test_refusal_by_name_comes_before_existence(tools: MemoryTools) -> None:
    # A group caller learns nothing about whether a private file exists.
    there = tools.call("memory_get", {"path": "memory/private/diary.md"}, scope="group")
    absent = tools.call("memory_get", {"path": "memory/private/absent.md"}, scope="group")
    assert there.payload["code"] == absent.payload["code"] == "scope-private"


def test_case_games_do_not_bypass_folder_rules(ws: Path, tools: MemoryTools) -> None:
    (ws / "memory" / "PRIVATE").mkdir()
    (ws / "memory" / "PRIVATE" / "x.md").write_text("quokka upper private\n")
    (ws / "memory" / "agents" / "BOB").mkdir()
    (ws / "memory" / "agents" / "BOB" / "y.md").write_text("quokka upper bob\n")
    assert paths_found(tools, scope="group", agent_id="alice") == SHARED | ALICE
    assert (
        tools.call("memory_get", {"path": "memory/PRIVATE/x.md"}, scope="group").payload["code"]
        == "scope-private"
    )
    assert (
        tools.call("memory_get", {"path": "memory/agents/BOB/y.md"}, agent_id="alice").payload[
            "code"
        ]
        == "other-agent"
    )


def test_symlinks_inside_the_workspace_cannot_launder_a_path(ws: Path, tools: MemoryTools) -> None:
    memory = ws / "memory"
    (memory / "a-view.md").symlink_to(memory / "agents" / "bob" / "notes.md")
    (memory / "longterm-view.md").symlink_to(ws / "MEMORY.md")
    (memory / "diary-view.md").symlink_to(memory / "private" / "diary.md")
    # The walk meets memory/a-view.md before memory/agents/bob/: the index holds bob's note
    # under the innocent name; it must stay hidden anyway.
    assert "memory/a-view.md" in paths_found(tools, agent_id="bob")
    assert paths_found(tools, agent_id="alice", scope="group") == SHARED | ALICE
    for path, code in [
        ("memory/a-view.md", "other-agent"),
        ("memory/longterm-view.md", "scope-long-term"),
        ("memory/diary-view.md", "scope-private"),
    ]:
        payload = tools.call("memory_get", {"path": path}, agent_id="alice", scope="group").payload
        assert payload["code"] == code, payload
        assert "leads to" in payload["error"]


def test_front_matter_is_read_fresh(ws: Path, tools: MemoryTools) -> None:
    note = ws / "memory" / "projects" / "billing.md"
    assert "memory/projects/billing.md" in paths_found(tools, scope="group")
    note.write_text("---\nprivate: yes  # just for me\n---\nInvoices use the quokka exporter.\n")
    assert paths_found(tools, scope="group") == {"memory/2026-01-12.md"}
    assert (
        tools.call("memory_get", {"path": "memory/projects/billing.md"}, scope="group").payload[
            "code"
        ]
        == "scope-private"
    )
    note.write_text("---\nprivate: false\n---\nInvoices use the quokka exporter.\n")
    assert "memory/projects/billing.md" in paths_found(tools, scope="group")


@pytest.mark.parametrize(
    ("head", "private"),
    [
        ("---\nprivate: true\n---\n", True),
        ("\ufeff---\ntitle: x\nPrivate: True\n---\n", True),
        ("---\nprivate: 'yes'\n---\n", True),
        ("---\nprivate: false\n---\n", False),
        ("---\ntitle: x\n---\nprivate: true\n", False),
        ("# Title\n---\nprivate: true\n---\n", False),
        ("private: true\n", False),
    ],
)
def test_front_matter_detection(head: str, private: bool) -> None:
    from memdir.tools.access import has_private_front_matter

    assert has_private_front_matter(head.encode()) is private


def test_namespaces_limit_search(tools: MemoryTools) -> None:
    own = paths_found(tools, agent_id="alice", scope="group")
    assert own == SHARED | ALICE
    result = tools.call(
        "memory_search",
        {"query": "quokka", "minScore": 0, "namespace": "agent"},
        agent_id="alice",
    )
    assert {h["path"] for h in result.payload["results"]} == ALICE | ALICE_LONG_TERM_AND_PRIVATE
    result = tools.call(
        "memory_search",
        {"query": "quokka", "minScore": 0, "namespace": "shared"},
        agent_id="alice",
        scope="group",
    )
    assert {h["path"] for h in result.payload["results"]} == SHARED


def _with_transcript(ws: Path, open_tools: Callable[..., MemoryTools], content: str) -> MemoryTools:
    """Tools that index session transcripts, over ``ws`` with one transcript saying ``content``."""
    (ws / "sessions").mkdir()
    record = {"type": "message", "message": {"role": "user", "content": content}}
    (ws / "sessions" / "s1.jsonl").write_text(json.dumps(record) + "\n")
    return open_tools(overrides={"sources": ["memory", "sessions"]})


def test_sessions_are_searched_only_in_main(
    ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    tools = _with_transcript(ws, open_tools, "my quokka secret")
    assert "sessions/s1.jsonl" in paths_found(tools)
    assert "sessions/s1.jsonl" not in paths_found(tools, scope="group")
    payload = tools.call(
        "memory_search", {"query": "quokka", "source": "sessions"}, scope="group"
    ).payload
    assert payload["results"] == []
    assert "only in the main" in payload["warnings"][-1]


def test_per_agent_default_scope(open_tools: Callable[..., MemoryTools]) -> None:
    overrides = {"tools.scope": "shared", "tools.agent_scopes": {"alice": "main"}}
    assert open_tools(overrides=overrides).scope == "shared"
    assert open_tools(agent_id="alice", overrides=overrides).scope == "main"
    assert open_tools(agent_id="bob", overrides=overrides).scope == "shared"
    assert open_tools(agent_id="alice", scope="group", overrides=overrides).scope == "group"
    tools = open_tools(agent_id="bob", overrides=overrides)
    assert tools.call("memory_get", {"path": "MEMORY.md"}).payload["code"] == "scope-long-term"
    assert not tools.call("memory_get", {"path": "MEMORY.md"}, scope="main").is_error


def test_agent_scopes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, open_tools: Callable[..., MemoryTools]
) -> None:
    monkeypatch.setenv("MEMDIR_TOOLS_AGENT_SCOPES", '{"alice": "group"}')
    assert open_tools(agent_id="alice").scope == "group"
    monkeypatch.setenv("MEMDIR_TOOLS_AGENT_SCOPES", '{"../x": "group"}')
    with pytest.raises(ConfigError, match="not a valid agent id"):
        open_tools()


@pytest.mark.parametrize("agent", ["", "../bob", "a/b", "Alice", ".hidden", "x" * 65, "bob\x00"])
def test_invalid_agent_ids_are_refused(tools: MemoryTools, agent: str) -> None:
    with pytest.raises(UsageError, match="invalid agent id"):
        MemoryTools(tools.memory, agent_id=agent)
    with pytest.raises(UsageError, match="invalid agent id"):
        tools.call("memory_search", {"query": "x"}, agent_id=agent)


def test_unknown_scope_is_refused(tools: MemoryTools) -> None:
    with pytest.raises(UsageError, match="unknown scope"):
        MemoryTools(tools.memory, scope="public")


# (scope, agent) -> the words of "quokka worry allergy alice wombat" no note this caller may
# see holds: worry and allergy are only in private notes, alice only in alice's folder.
NOT_SEEN = {
    ("main", None): ["alice", "wombat"],
    ("group", None): ["worry", "allergy", "alice", "wombat"],
    ("main", "alice"): ["wombat"],
    ("group", "alice"): ["worry", "allergy", "wombat"],
}


@pytest.mark.parametrize(("scope", "agent"), list(NOT_SEEN), ids=lambda v: str(v))
def test_the_words_no_note_holds_are_those_this_caller_cannot_see(
    tools: MemoryTools, scope: str, agent: str | None
) -> None:
    """A word that only hidden notes hold is named like one memory lacks: leaving it out
    would tell a group chat that a private note mentions it."""
    result = tools.call(
        "memory_search",
        {"query": "quokka worry allergy alice wombat", "minScore": 0},
        scope=scope,
        agent_id=agent,
    )
    assert not result.is_error, result.payload
    assert result.payload["not_in_memory"] == NOT_SEEN[(scope, agent)]


def test_a_word_only_a_transcript_holds_is_not_in_memory_outside_main(
    ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    tools = _with_transcript(ws, open_tools, "my platypus secret")

    def not_in_memory(scope: str) -> list[str]:
        query = {"query": "quokka platypus", "minScore": 0}
        return tools.call("memory_search", query, scope=scope).payload["not_in_memory"]

    assert not_in_memory("main") == []
    assert not_in_memory("group") == ["platypus"]
