"""Every tool accepts exactly what its input schema declares: the schema is the only definition.

The cases are derived from the schemas themselves, so a limit added to a schema is tested
without a new test, and a handler that ignores one fails here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from memdir.tools import TOOLS
from memdir.tools.args import Arguments

from .helpers import Call

EXAMPLE_TEXT = "MEMORY.md"  # a valid value for every string argument (a path that exists, too)


def _example(rules: Mapping[str, Any]) -> Any:
    """A value the schema ``rules`` allow."""
    if "enum" in rules:
        return rules["enum"][0]
    if rules["type"] in ("integer", "number"):
        return rules.get("minimum", 1)
    return EXAMPLE_TEXT


def _base(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The smallest valid call: each required argument with an allowed value."""
    return {name: _example(schema["properties"][name]) for name in schema["required"]}


def _violations() -> Iterator[Any]:
    """(tool, argument, bad value, what the error says) for every limit of every schema."""
    for spec in TOOLS:
        for name, rules in spec.input_schema["properties"].items():
            kind = rules["type"]
            step = 1 if kind == "integer" else 0.01
            cases: list[tuple[Any, str]] = []
            if "minimum" in rules:
                cases.append((rules["minimum"] - step, "must be at least"))
            if "maximum" in rules:
                cases.append((rules["maximum"] + step, "must be at most"))
            if "enum" in rules:
                cases.append(("not-" + rules["enum"][0], "must be one of"))
            if kind in ("integer", "number"):
                cases += [("lots", "must be"), (True, "got a boolean"), ([1], "got an array")]
            if kind == "string" and "enum" in rules:
                cases += [(7, "must be one of"), ({"a": 1}, "must be one of")]
            elif kind == "string":
                cases += [(7, "must be a string"), ({"a": 1}, "got an object")]
            for value, fragment in cases:
                yield pytest.param(
                    spec.name, name, value, fragment, id=f"{spec.name}-{name}-{value!r}"
                )


@pytest.mark.parametrize(("tool", "name", "value", "fragment"), list(_violations()))
def test_a_value_outside_the_schema_is_refused_naming_the_argument(
    call: Call, tool: str, name: str, value: Any, fragment: str
) -> None:
    spec = next(s for s in TOOLS if s.name == tool)
    payload, is_error = call(tool, {**_base(spec.input_schema), name: value})
    assert is_error, payload
    assert payload["code"] == "invalid_arguments"
    assert payload["error"].startswith(f"{name} "), payload["error"]
    assert fragment in payload["error"]


def _boundaries() -> Iterator[Any]:
    for spec in TOOLS:
        for name, rules in spec.input_schema["properties"].items():
            for bound in ("minimum", "maximum"):
                if bound in rules:
                    yield pytest.param(
                        spec.name, name, rules[bound], id=f"{spec.name}-{name}-{bound}"
                    )
            for choice in rules.get("enum", ()):
                if name != "namespace":  # 'agent' needs an agent id: tested in test_scopes
                    yield pytest.param(spec.name, name, choice, id=f"{spec.name}-{name}-{choice}")


@pytest.mark.parametrize(("tool", "name", "value"), list(_boundaries()))
def test_every_value_the_schema_allows_is_accepted(
    call: Call, tool: str, name: str, value: Any
) -> None:
    spec = next(s for s in TOOLS if s.name == tool)
    payload, is_error = call(tool, {**_base(spec.input_schema), name: value})
    assert not is_error or payload["code"] != "invalid_arguments", payload


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_each_required_argument_is_required(call: Call, spec: Any) -> None:
    for name in spec.input_schema["required"]:
        arguments = _base(spec.input_schema)
        del arguments[name]
        payload, is_error = call(spec.name, arguments)
        assert is_error and payload["code"] == "invalid_arguments"
        assert payload["error"] == f"{name} is required and must be a non-empty string"


def test_reading_an_argument_the_schema_does_not_declare_is_a_bug() -> None:
    args = Arguments("memory_get", {}, {"type": "object", "properties": {"path": {}}})
    with pytest.raises(KeyError, match="'lines', which its input schema does not declare"):
        args.integer("lines")


def test_explicit_limits_still_apply_without_a_schema() -> None:
    args = Arguments("custom", {"n": 0, "k": "b"})
    with pytest.raises(Exception, match="n must be at least 1, got 0"):
        args.integer("n", minimum=1)
    with pytest.raises(Exception, match="k must be one of a, got 'b'"):
        args.choice("k", choices=("a",))
