"""Reading a tool call's arguments: JSON text or a mapping, camelCase or snake_case names.

Models send arguments as a JSON string (OpenAI), an object (Anthropic, MCP), with ``null`` for
"not given" (OpenAI strict mode), numbers as strings, or floats where integers are expected.
:class:`Arguments` accepts all of that, and turns anything it cannot use into a
:class:`ToolError` whose message names the argument and what it should be. The limits come from
the tool's input schema (``minimum``, ``maximum``, ``enum``), so what the model is told and what
the tool accepts are one definition.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from memdir.errors import MemdirError
from memdir.text import is_utf8_encodable

__all__ = ["Arguments", "ToolError", "parse_arguments"]


class ToolError(MemdirError):
    """A call that cannot be answered. The dispatcher turns it into an error result.

    ``code`` is a short stable name (``invalid_arguments``, ``missing``, ``scope-private``…);
    ``extra`` holds tool-specific fields added to the error object.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        extra: Mapping[str, Any] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.code = code
        self.extra = dict(extra or {})


def invalid(message: str) -> ToolError:
    return ToolError(message, code="invalid_arguments")


def parse_arguments(raw: str | bytes | Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a call as a dict; ``None`` or blank text means no arguments."""
    if raw is None:
        return {}
    if isinstance(raw, bytes | bytearray):
        raw = raw.decode("utf-8", errors="replace")
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"arguments are not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                code="invalid_json",
            ) from None
    if not isinstance(raw, Mapping):
        raise ToolError(
            f"arguments must be a JSON object, got {type(raw).__name__}", code="invalid_json"
        )
    return {str(k): v for k, v in raw.items()}


class Arguments:
    """Typed access to one call's arguments; each getter takes a name and its aliases."""

    def __init__(
        self, tool: str, values: Mapping[str, Any], schema: Mapping[str, Any] | None = None
    ) -> None:
        self.tool = tool
        self._values = dict(values)
        self._seen: set[str] = set()
        self._properties: Mapping[str, Mapping[str, Any]] = (schema or {}).get("properties", {})

    def _rules(self, name: str) -> Mapping[str, Any]:
        """The input schema of argument ``name`` (empty without a schema)."""
        if self._properties and name not in self._properties:
            raise KeyError(f"{self.tool} reads {name!r}, which its input schema does not declare")
        return self._properties.get(name, {})

    def _take(self, names: Sequence[str]) -> tuple[str, Any] | None:
        self._seen.update(names)
        for name in names:
            value = self._values.get(name)
            if value is not None:
                return name, value
        return None

    def given(self, name: str, *aliases: str) -> bool:
        """Whether the call holds a non-null value under ``name`` or an alias."""
        return any(self._values.get(n) is not None for n in (name, *aliases))

    def raw(self, name: str, *aliases: str) -> Any:
        """The value as sent (any JSON type), or ``None``; for arguments of several types."""
        self._rules(name)
        found = self._take((name, *aliases))
        return None if found is None else found[1]

    def text(
        self,
        name: str,
        *aliases: str,
        required: bool = False,
        strip: bool = True,
        check_unicode: bool = True,
    ) -> str | None:
        """A string; blank counts as missing. ``strip`` removes surrounding whitespace.

        ``check_unicode`` refuses lone surrogates (JSON allows ``"\\ud800"``; files and
        SQLite do not); turn it off to let the consumer give its own, more specific error.
        """
        self._rules(name)
        found = self._take((name, *aliases))
        if found is not None:
            key, value = found
            if not isinstance(value, str):
                raise invalid(f"{key} must be a string, got {_kind(value)}")
            if check_unicode and not is_utf8_encodable(value):
                raise invalid(f"{key} is not valid Unicode text (it holds a lone surrogate)")
            if value.strip():
                return value.strip() if strip else value
        if required:
            raise invalid(f"{name} is required and must be a non-empty string")
        return None

    def required_text(self, name: str, *aliases: str, strip: bool = True) -> str:
        """Like :meth:`text` with ``required=True``: a non-blank string, or a ToolError."""
        value = self.text(name, *aliases, strip=strip)
        if value is None:
            raise invalid(f"{name} is required and must be a non-empty string")
        return value

    def integer(
        self,
        name: str,
        *aliases: str,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        """A whole number; a float is truncated and a numeric string accepted (as models send).

        ``minimum`` and ``maximum`` default to the schema's.
        """
        rules = self._rules(name)
        found = self._take((name, *aliases))
        if found is None:
            return None
        key, value = found
        number = _number(key, value, "an integer")
        result = int(number)
        _check_range(
            key, result, _default(minimum, rules, "minimum"), _default(maximum, rules, "maximum")
        )
        return result

    def number(
        self,
        name: str,
        *aliases: str,
        minimum: float | None = None,
        maximum: float | None = None,
    ) -> float | None:
        """A finite number; ``minimum`` and ``maximum`` default to the schema's."""
        rules = self._rules(name)
        found = self._take((name, *aliases))
        if found is None:
            return None
        key, value = found
        result = _number(key, value, "a number")
        _check_range(
            key, result, _default(minimum, rules, "minimum"), _default(maximum, rules, "maximum")
        )
        return result

    def choice(self, name: str, *aliases: str, choices: Sequence[str] | None = None) -> str | None:
        """One of ``choices``, by default the schema's ``enum``."""
        if choices is None:
            choices = self._rules(name).get("enum", ())
        found = self._take((name, *aliases))
        if found is None:
            return None
        key, value = found
        if not isinstance(value, str) or value.strip() not in choices:
            raise invalid(f"{key} must be one of {', '.join(choices)}, got {value!r}")
        return value.strip()

    def finish(self, accepted: Sequence[str]) -> None:
        """Refuse arguments no getter asked for, naming the ones the tool takes."""
        unknown = sorted(k for k in self._values if k not in self._seen)
        if unknown:
            raise invalid(
                f"unknown argument(s) {', '.join(unknown)}; {self.tool} takes {', '.join(accepted)}"
            )


def _default(given: float | None, rules: Mapping[str, Any], bound: str) -> float | None:
    return rules.get(bound) if given is None else given


def _number(key: str, value: Any, wanted: str) -> float:
    if isinstance(value, bool):
        raise invalid(f"{key} must be {wanted}, got a boolean")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise invalid(f"{key} must be {wanted}, got {value!r}") from None
    else:
        raise invalid(f"{key} must be {wanted}, got {_kind(value)}")
    if not math.isfinite(number):
        raise invalid(f"{key} must be a finite number, got {value!r}")
    return number


def _check_range(key: str, value: float, low: float | None, high: float | None) -> None:
    if low is not None and value < low:
        raise invalid(f"{key} must be at least {low}, got {value:g}")
    if high is not None and value > high:
        raise invalid(f"{key} must be at most {high}, got {value:g}")


def _kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
    }.get(type(value), type(value).__name__)
