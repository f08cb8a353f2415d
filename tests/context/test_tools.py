"""lcm_grep, lcm_describe and lcm_expand through the tool machinery: one definition (valid
JSON Schema, every export format), the dispatcher's error objects, and a conversation
compacted by ``memdir lcm import`` searched and expanded by tool calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from context.helpers import conversation
from memdir import Memory
from memdir.context.compaction import ContextSettings
from memdir.context.lcm import LosslessContext
from memdir.context.tools import LCM_TOOLS
from memdir.tools import ALL_TOOLS, TOOLS, MemoryTools, tool_schemas

NAMES = ["lcm_grep", "lcm_describe", "lcm_expand"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    return root


@pytest.fixture
def filled(ws: Path) -> Path:
    """A conversation of 400 messages (one says the gate code is 猫头鹰-7731) compacted."""
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        lcm = LosslessContext(mem.config, settings=ContextSettings(window_tokens=2048))
        messages = conversation(400)
        messages[50] = type(messages[50])("user", "记住：大门密码是猫头鹰-7731。", 1, "needle")
        working = lcm.working("talk")
        working.extend(messages)
        while working.compact().compacted:
            pass
        lcm.close()
    return ws


def test_names_and_schemas() -> None:
    assert [s.name for s in LCM_TOOLS] == NAMES
    assert [s.name for s in ALL_TOOLS] == [s.name for s in TOOLS] + NAMES
    for spec in LCM_TOOLS:
        Draft202012Validator.check_schema(spec.input_schema)
        Draft202012Validator.check_schema(spec.output_schema)
        for name, prop in spec.input_schema["properties"].items():
            assert prop.get("description"), f"{spec.name}.{name}"
        assert 200 <= len(spec.description) <= 1024
        assert spec.read_only
    # exported only when asked for; the memory tools alone stay the default
    assert [t["function"]["name"] for t in tool_schemas("openai")] == [s.name for s in TOOLS]
    for fmt in ("openai", "anthropic", "mcp"):
        got = tool_schemas(fmt, tools=NAMES)
        assert got == [spec.export(fmt) for spec in LCM_TOOLS]


def _call(tools: MemoryTools, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = tools.call(name, json.dumps(args))
    return {"error": result.is_error, **result.payload}


def test_grep_describe_expand_through_the_dispatcher(filled: Path) -> None:
    with MemoryTools.open(filled, tools=[*NAMES, "memory_search"]) as tools:
        assert "## Conversation History" in tools.prompt() and "## Memory" in tools.prompt()
        found = _call(tools, "lcm_grep", {"pattern": "大门密码", "scope": "messages"})
        assert not found["error"] and found["matched"] == "all" and found["session"] == "talk"
        (hit,) = [h for h in found["results"] if "猫头鹰-7731" in h["snippet"]]
        assert hit["summary"] and not hit["in_context"]
        described = _call(tools, "lcm_describe", {"id": hit["summary"]})
        assert described["depth"] == 0 and described["kind"] == "summary"
        assert {"kind": "message", "id": hit["id"]} in described["children"]
        assert described["parent"] is None or described["parent"].startswith("sum_")
        assert _call(tools, "lcm_describe", {"id": hit["id"]})["summary"] == hit["summary"]
        expanded = _call(tools, "lcm_expand", {"id": hit["summary"], "max_tokens": 50})
        contents = [m["content"] for m in expanded["messages"]]
        offset = expanded["next_offset"]
        while offset is not None:
            page = _call(
                tools, "lcm_expand", {"id": hit["summary"], "max_tokens": 50, "offset": offset}
            )
            contents.extend(m["content"] for m in page["messages"])
            offset = page["next_offset"]
        assert "记住：大门密码是猫头鹰-7731。" in contents
        assert len(contents) == described["messages"]
        regex = _call(tools, "lcm_grep", {"pattern": r"猫头鹰-\d{4}", "mode": "regex"})
        assert regex["results"][0]["id"] == hit["id"]
        word = max(described["content"].split(), key=len)
        summaries = _call(tools, "lcm_grep", {"pattern": word, "scope": "summaries"})
        assert hit["summary"] in [h["id"] for h in summaries["results"]]
        assert all(h["kind"] == "summary" for h in summaries["results"])


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("lcm_grep", {}, "invalid_arguments"),
        ("lcm_grep", {"pattern": "x", "mode": "glob"}, "invalid_arguments"),
        ("lcm_grep", {"pattern": "(", "mode": "regex"}, "invalid_arguments"),
        ("lcm_grep", {"pattern": "x", "limit": 500}, "invalid_arguments"),
        ("lcm_grep", {"pattern": "x", "session": "nope"}, "missing"),
        ("lcm_grep", {"pattern": "x", "colour": "red"}, "invalid_arguments"),
        ("lcm_describe", {"id": "sum_0123456789abcdef"}, "missing"),
        ("lcm_describe", {"id": "banana"}, "invalid_arguments"),
        ("lcm_expand", {"id": "999999"}, "missing"),
        ("lcm_expand", {"id": "1", "max_tokens": 0}, "invalid_arguments"),
    ],
)
def test_bad_calls_are_error_objects(
    filled: Path, name: str, args: dict[str, Any], code: str
) -> None:
    with MemoryTools.open(filled, tools=NAMES) as tools:
        result = tools.call(name, args)
    assert result.is_error and result.payload["code"] == code, result.payload
    assert result.payload["error"]


def test_without_a_store_the_tools_say_so(ws: Path) -> None:
    with MemoryTools.open(ws, tools=NAMES) as tools:
        result = tools.call("lcm_grep", {"pattern": "anything"})
    assert result.is_error and result.payload["code"] == "missing"
    assert "memdir lcm import" in result.payload["hint"]
    assert not (ws / ".memdir" / "lcm.sqlite").exists()  # asking creates nothing


def test_a_bound_session_is_the_default(filled: Path) -> None:
    with Memory(filled, overrides={"embedding.provider": "none"}) as mem:
        other = LosslessContext(mem.config)
        other.working("later").add("user", "a newer conversation about billing")
        other.close()
        newest = MemoryTools(mem, tools=NAMES).call("lcm_grep", {"pattern": "billing"})
        assert newest.payload["session"] == "later"
        bound = MemoryTools(mem, tools=NAMES, session="talk").call(
            "lcm_grep", {"pattern": "billing"}
        )
        assert bound.payload["session"] == "talk"


def test_a_regex_scan_stops_at_its_time_budget(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memdir.context.store as store_module

    with MemoryTools.open(filled, tools=NAMES) as tools:
        whole = tools.call("lcm_grep", {"pattern": "x{1000}", "mode": "regex"})
        assert whole.payload["matched"] == "regex" and whole.payload["results"] == []
        monkeypatch.setattr(store_module, "REGEX_BUDGET_S", 0.0)
        cut = tools.call("lcm_grep", {"pattern": "x{1000}", "mode": "regex"})
    assert not cut.is_error and cut.payload["matched"] == "regex-partial"
