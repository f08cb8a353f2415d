"""memory_get: the spec's slicing (§10.2) and argument handling; path refusals are in test_paths."""

from __future__ import annotations

import pytest

from .helpers import Call

BILLING = "memory/projects/billing.md"  # 5 lines


@pytest.mark.parametrize(
    ("arguments", "text", "span"),
    [
        ({}, "# Billing\n\nInvoices use the quokka exporter.\nline 4\nline 5", (1, 5)),
        ({"from": 3, "lines": 2}, "Invoices use the quokka exporter.\nline 4", (3, 4)),
        ({"from": 4}, "line 4\nline 5", (4, 5)),
        ({"lines": 1}, "# Billing", (1, 1)),
        ({"from": 2.9, "lines": "1"}, "", (2, 2)),
        ({"from_line": 5}, "line 5", (5, 5)),
        ({"from": 9, "lines": 3}, "", (9, 8)),
    ],
    ids=[
        "whole",
        "range",
        "from",
        "lines",
        "coerced",
        "alias",
        "past-eof",
    ],
)
def test_slicing(
    call: Call, arguments: dict[str, object], text: str, span: tuple[int, int]
) -> None:
    payload, is_error = call("memory_get", {"path": BILLING, **arguments})
    assert not is_error, payload
    assert payload == {
        "path": BILLING,
        "text": text,
        "from_line": span[0],
        "to_line": span[1],
        "total_lines": 5,
    }


def test_path_is_normalised(call: Call) -> None:
    payload, is_error = call("memory_get", {"path": " ./memory//projects/billing.md "})
    assert not is_error and payload["path"] == BILLING


@pytest.mark.parametrize(
    ("arguments", "code", "fragment"),
    [
        ({}, "invalid_arguments", "path is required"),
        ({"path": None}, "invalid_arguments", "path is required"),
        ({"path": 7}, "invalid_arguments", "path must be a string"),
        ({"path": ""}, "empty", "path is empty"),
        ({"path": BILLING, "from": "first"}, "invalid_arguments", "from must be an integer"),
        ({"path": BILLING, "from": 0}, "invalid_arguments", "from must be at least 1, got 0"),
        ({"path": BILLING, "from": -3}, "invalid_arguments", "from must be at least 1, got -3"),
        ({"path": BILLING, "from_line": 0}, "invalid_arguments", "from_line must be at least 1"),
        ({"path": BILLING, "lines": 0}, "invalid_arguments", "lines must be at least 1, got 0"),
        ({"path": BILLING, "from": 0.5}, "invalid_arguments", "from must be at least 1, got 0"),
        ({"path": BILLING, "limit": 3}, "invalid_arguments", "unknown argument(s) limit"),
    ],
)
def test_bad_arguments(call: Call, arguments: dict[str, object], code: str, fragment: str) -> None:
    payload, is_error = call("memory_get", arguments)
    assert is_error and payload["code"] == code
    assert fragment in payload["error"]


def test_missing_file_is_an_error_in_the_spec_shape(call: Call) -> None:
    payload, is_error = call("memory_get", {"path": "memory/2030-01-01.md"})
    assert is_error
    assert payload["code"] == "missing"
    assert {k: payload[k] for k in ("path", "text", "disabled")} == {
        "path": "memory/2030-01-01.md",
        "text": "",
        "disabled": True,
    }
