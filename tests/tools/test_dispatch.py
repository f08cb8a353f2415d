"""The dispatcher and the exported schemas: one definition, valid JSON Schema, every format."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from memdir.errors import UsageError
from memdir.tools import TOOLS, MemoryTools, tool_schemas

from .helpers import Call


def test_names_and_order() -> None:
    assert [spec.name for spec in TOOLS] == ["memory_search", "memory_get", "memory_write"]


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_schemas_are_valid_json_schema(spec: Any) -> None:
    Draft202012Validator.check_schema(spec.input_schema)
    Draft202012Validator.check_schema(spec.output_schema)
    assert spec.input_schema["type"] == "object"
    assert set(spec.input_schema["required"]) <= set(spec.input_schema["properties"])
    for name, prop in spec.input_schema["properties"].items():
        assert prop.get("description"), f"{spec.name}.{name} needs a description for the model"
    assert 200 <= len(spec.description) <= 1024


def test_every_format_carries_the_same_definition() -> None:
    openai, anthropic, mcp = (tool_schemas(fmt) for fmt in ("openai", "anthropic", "mcp"))
    for spec, o, a, m in zip(TOOLS, openai, anthropic, mcp, strict=True):
        assert o == {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }
        assert a == {
            "name": spec.name,
            "description": spec.description,
            "input_schema": spec.input_schema,
        }
        assert m["name"] == spec.name and m["description"] == spec.description
        assert m["inputSchema"] == spec.input_schema
        assert m["outputSchema"] == spec.output_schema
    annotations = {m["name"]: m["annotations"] for m in mcp}
    assert annotations["memory_search"]["readOnlyHint"] is True
    assert annotations["memory_get"]["readOnlyHint"] is True
    assert annotations["memory_write"]["readOnlyHint"] is False
    assert annotations["memory_write"]["destructiveHint"] is False


def test_exports_are_copies() -> None:
    exported = tool_schemas("anthropic")
    exported[0]["input_schema"]["properties"].clear()
    assert tool_schemas("anthropic")[0]["input_schema"]["properties"]


def test_unknown_format_or_tool() -> None:
    with pytest.raises(UsageError, match="unknown tool format"):
        tool_schemas("gemini")
    with pytest.raises(UsageError, match="unknown tool"):
        tool_schemas("openai", tools=["memory_delete"])


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "quokka"},
        '{"query": "quokka"}',
        b'{"query": "quokka"}',
        '  {"query": "quokka"}\n',
    ],
    ids=["dict", "json", "bytes", "padded"],
)
def test_arguments_as_text_or_object(call: Call, arguments: object) -> None:
    payload, is_error = call("memory_search", arguments)
    assert not is_error and payload["results"]


@pytest.mark.parametrize(
    ("name", "arguments", "code", "fragment"),
    [
        ("memory_search", "{not json", "invalid_json", "not valid JSON"),
        ("memory_search", "[1, 2]", "invalid_json", "must be a JSON object, got list"),
        ("memory_search", '"text"', "invalid_json", "got str"),
        ("memory_search", None, "invalid_arguments", "query is required"),
        ("memory_search", "", "invalid_arguments", "query is required"),
        ("memory_delete", {}, "unknown_tool", "available: memory_search, memory_get"),
        ("", {}, "unknown_tool", "unknown tool ''"),
    ],
)
def test_bad_calls_return_error_objects(
    tools: MemoryTools, name: str, arguments: Any, code: str, fragment: str
) -> None:
    text = tools.dispatch(name, arguments)
    payload = json.loads(text)
    assert payload["code"] == code
    assert fragment in payload["error"]
    assert tools.call(name, arguments).is_error


def test_results_match_their_output_schemas(tools: MemoryTools) -> None:
    calls = [
        ("memory_search", {"query": "quokka"}),
        ("memory_get", {"path": "memory/2026-01-12.md"}),
        ("memory_write", {"content": "- schema check"}),
    ]
    for (name, arguments), spec in zip(calls, TOOLS, strict=True):
        result = tools.call(name, arguments)
        assert not result.is_error, result.payload
        Draft202012Validator(spec.output_schema).validate(result.payload)
        assert json.loads(result.to_json()) == result.payload


def test_read_only_tools(tools: MemoryTools) -> None:
    reader = MemoryTools(tools.memory, tools=["memory_search", "memory_get"])
    assert reader.names == ("memory_search", "memory_get")
    assert [s["function"]["name"] for s in reader.schemas()] == list(reader.names)
    assert reader.call("memory_write", {"content": "x"}).payload["code"] == "unknown_tool"
    assert "memory_write" not in reader.prompt()


async def test_acall(tools: MemoryTools) -> None:
    result = await tools.acall("memory_get", {"path": "MEMORY.md", "lines": 1})
    assert result.payload["text"] == "# Memory"
