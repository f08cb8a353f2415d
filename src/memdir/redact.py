"""Masking of secrets and personal data in text that leaves the machine.

Notes are sent to hosted embedding providers and may be returned to agents as tool results;
API keys, passwords, card numbers, e-mail addresses and phone numbers in them should not be::

    >>> Redactor().redact("OPENAI_API_KEY=sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU")
    'OPENAI_API_KEY=[REDACTED:openai_api_key]'

A :class:`Redactor` runs named :class:`RedactionPattern` regexes over the text. When a regex has a
group named ``value``, only that group is masked (``password: [REDACTED:secret]``); otherwise the
whole match is. Overlapping findings merge into one span, named after the finding that starts
first (the earlier pattern on a tie).

Guarantees:

* **Lines are kept.** A masked span keeps its line breaks after the mask, so line numbers
  (and citations such as ``notes.md#L12-L20``) stay valid.
* **Idempotent.** A match that overlaps a mask already in the text is ignored, and
  :meth:`Redactor.redact` repeats its pass until nothing is found (at most 8 passes; with the
  default patterns the second pass finds nothing), so redacting twice equals redacting once.
* **Linear time** for the default patterns: every repetition is bounded or cannot backtrack
  into a neighbour, and each pattern starts at a literal or at a token boundary, so a 1 MB
  adversarial input takes about a second. User patterns from configuration are the user's
  responsibility.

Default patterns, in order (each can be disabled by name with :func:`build_patterns`):
``private_key``, ``anthropic_api_key``, ``openai_api_key``, ``github_token``, ``slack_token``,
``aws_access_key_id``, ``aws_secret_access_key``, ``google_api_key``, ``stripe_key``, ``jwt``,
``bearer_token``, ``url_credentials``, ``secret`` (``key=value`` and ``key: value`` forms),
``payment_card`` (Luhn-checked), ``email`` and ``phone``.

Known limits: a value after ``password:`` in prose ("password: click the link") is masked, as
is any 13–19 digit number starting with 2–6 that passes the Luhn check; secrets written in
free prose ("the password is hunter2") are not found.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from memdir.errors import ConfigError, UsageError

__all__ = [
    "DEFAULT_MASK",
    "DEFAULT_PATTERNS",
    "Finding",
    "RedactionPattern",
    "Redactor",
    "build_patterns",
]

DEFAULT_MASK = "[REDACTED:{name}]"
"""The default mask; ``{name}`` is replaced by the name of the pattern that matched."""

_NAME = re.compile(r"[A-Za-z0-9_]+")
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_MAX_PASSES = 8


@dataclass(frozen=True, slots=True)
class Finding:
    """One span of text to be masked: ``text[start:end]`` matched pattern ``name``."""

    name: str
    start: int
    end: int

    def to_dict(self) -> dict[str, str | int]:
        """Return the finding as a JSON-ready dict."""
        return {"name": self.name, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class RedactionPattern:
    """A named regex whose matches are secrets.

    ``validate``, when set, receives the text that would be masked and may reject it (the Luhn
    check of ``payment_card`` is one). The name must be letters, digits and ``_``.
    """

    name: str
    regex: re.Pattern[str]
    validate: Callable[[str], bool] | None = None

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name):
            raise UsageError(
                f"invalid redaction pattern name {self.name!r}",
                hint="use letters, digits and '_' only",
            )

    @classmethod
    def from_regex(cls, name: str, pattern: str) -> RedactionPattern:
        """Compile a user-supplied pattern, raising :class:`ConfigError` if it is unusable."""
        if not _NAME.fullmatch(name):
            raise ConfigError(
                f"invalid redaction pattern name {name!r}", hint="use letters, digits and '_' only"
            )
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ConfigError(
                f"redaction pattern {name!r} is not a valid regular expression: {exc}"
            ) from exc
        return cls(name, regex)

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Yield the ``(start, end)`` spans to mask in ``text``, skipping empty ones."""
        group: int | str = "value" if "value" in self.regex.groupindex else 0
        for match in self.regex.finditer(text):
            start, end = match.span(group)
            if start >= end:
                continue
            if self.validate is None or self.validate(text[start:end]):
                yield start, end


class Redactor:
    """Find and mask secrets with a fixed list of patterns.

    ``patterns`` defaults to :data:`DEFAULT_PATTERNS`. ``mask`` is the replacement text, in
    which ``{name}`` becomes the pattern's name; it must be one line.
    """

    def __init__(
        self, patterns: Sequence[RedactionPattern] | None = None, *, mask: str = DEFAULT_MASK
    ) -> None:
        if not mask or _LINE_BREAK.search(mask):
            raise UsageError(f"invalid redaction mask {mask!r}", hint="use one non-empty line")
        self._patterns = tuple(DEFAULT_PATTERNS if patterns is None else patterns)
        names = [pattern.name for pattern in self._patterns]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise UsageError(f"duplicate redaction pattern names: {', '.join(duplicates)}")
        self._mask = mask
        self._existing_mask = re.compile(
            _NAME.pattern.join(re.escape(part) for part in mask.split("{name}"))
        )

    @property
    def patterns(self) -> tuple[RedactionPattern, ...]:
        """The patterns in the order they are applied."""
        return self._patterns

    def findings(self, text: str) -> list[Finding]:
        """Return the spans that :meth:`redact` masks in one pass, sorted and non-overlapping.

        Matches that overlap an existing mask, or hold only whitespace, are left out.
        """
        masks = [match.span() for match in self._existing_mask.finditer(text)]
        mask_starts = [start for start, _ in masks]
        candidates: list[tuple[int, int, int, str]] = []
        for order, pattern in enumerate(self._patterns):
            for start, end in pattern.spans(text):
                if text[start:end].strip() and not _overlaps(start, end, masks, mask_starts):
                    candidates.append((start, order, end, pattern.name))
        return _merge(candidates)

    def redact(self, text: str) -> str:
        """Return ``text`` with every finding replaced by the mask, keeping line breaks.

        Passes repeat until one finds nothing, since a mask can change what its neighbours
        match; the number of passes is capped for custom masks that could defeat this.
        """
        for _ in range(_MAX_PASSES):
            found = self.findings(text)
            if not found:
                break
            text = self._replace(text, found)
        return text

    def _replace(self, text: str, found: list[Finding]) -> str:
        """Replace each finding by its mask followed by the line breaks it covered."""
        pieces: list[str] = []
        position = 0
        for finding in found:
            covered = text[finding.start : finding.end]
            pieces.append(text[position : finding.start])
            pieces.append(self._mask.replace("{name}", finding.name))
            pieces.extend(_LINE_BREAK.findall(covered))
            position = finding.end
        pieces.append(text[position:])
        return "".join(pieces)


def _overlaps(start: int, end: int, masks: list[tuple[int, int]], mask_starts: list[int]) -> bool:
    """Whether ``[start, end)`` overlaps one of the sorted, disjoint ``masks``."""
    index = bisect.bisect_left(mask_starts, end) - 1
    return index >= 0 and masks[index][1] > start


def _merge(candidates: list[tuple[int, int, int, str]]) -> list[Finding]:
    """Merge overlapping ``(start, order, end, name)`` spans, keeping the first one's name."""
    merged: list[Finding] = []
    for start, _, end, name in sorted(candidates):
        if merged and start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Finding(last.name, last.start, max(last.end, end))
        else:
            merged.append(Finding(name, start, end))
    return merged


def build_patterns(
    *, disable: Iterable[str] = (), extra: Mapping[str, str] | None = None
) -> tuple[RedactionPattern, ...]:
    """Return the default patterns minus ``disable``, plus ``extra`` (name → regex) from config.

    Raises :class:`ConfigError` for an unknown name in ``disable``, an invalid extra regex or
    name, or an extra name that is still taken by an enabled default.
    """
    disabled = set(disable)
    known = [pattern.name for pattern in DEFAULT_PATTERNS]
    unknown = sorted(disabled.difference(known))
    if unknown:
        raise ConfigError(
            f"unknown redaction pattern(s) to disable: {', '.join(unknown)}",
            hint=f"known patterns: {', '.join(known)}",
        )
    patterns = [pattern for pattern in DEFAULT_PATTERNS if pattern.name not in disabled]
    for name, regex in (extra or {}).items():
        if any(pattern.name == name for pattern in patterns):
            raise ConfigError(
                f"redaction pattern {name!r} already exists",
                hint="choose another name, or disable the default pattern first",
            )
        patterns.append(RedactionPattern.from_regex(name, regex))
    return tuple(patterns)


# --- validators --------------------------------------------------------------------------


def _has_letter_and_digit(token: str) -> bool:
    """Random tokens mix letters and digits; kebab-case words and prose do not."""
    return any(char.isdigit() for char in token) and any(char.isalpha() for char in token)


def _luhn_valid(number: str) -> bool:
    """Whether the digits of ``number`` pass the Luhn checksum used by payment cards."""
    digits = [int(char) for char in number if char.isdigit()]
    doubled = (sum(divmod(2 * digit, 10)) for digit in digits[-2::-2])
    return (sum(digits[-1::-2]) + sum(doubled)) % 10 == 0


_DOUBLE_SEPARATOR = re.compile(r"[ .()-]{2}")


def _valid_phone(number: str) -> bool:
    """Check what the regex cannot for ``+`` numbers: 8–15 digits, tidy separators.

    National forms are fully described by the regex and always pass.
    """
    if not number.startswith("+"):
        return True
    digits = sum(char.isdigit() for char in number)
    if not 8 <= digits <= 15:
        return False
    if _DOUBLE_SEPARATOR.search(number.replace(") ", ")").replace(" (", "(")):
        return False
    return number.count("(") == number.count(")") <= 1


# --- default patterns --------------------------------------------------------------------

# Each pattern starts with a literal or a character class, so `re` can skip to candidate
# positions quickly, and checks the token boundary *after* that first piece with a fixed-width
# lookbehind. A pattern therefore starts only where the previous character cannot belong to
# the same token: a long run of token characters costs one attempt, not one per position.
_TOKEN = "A-Za-z0-9_-"
_NUMBER = "A-Za-z0-9_+.-"
_NUMBER_END = r"(?![A-Za-z0-9_]|[.-]\d)"


def _starting(prefix: str, *, not_after: str = _TOKEN) -> str:
    """``prefix`` (fixed width) where the character before it is not in ``[not_after]``."""
    return f"{prefix}(?<![{not_after}]{prefix})"


_PRIVATE_KEY = (
    r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
    # The body stops at the next "-----", so it cannot run past a following block.
    r"(?:[^-]*(?:-(?!----)[^-]*)*-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"
    # A block cut off before its END line: mask the base64 lines that follow.
    r"|(?:\r?\n[A-Za-z0-9+/=]{16,})+)"
)

_SECRET_KEY_NAMES = (
    *("passw(?:or)?d", "passphrase", "pwd", "private[_-]?key", "secret(?:[_-]?key)?"),
    *("client[_-]?secret", "token", "api[_-]?key", "access[_-]?key"),
    *("密码", "密钥", "口令", "令牌"),
)


def _key_name_regex(names: Sequence[str]) -> str:
    """Match any of ``names`` (case-insensitive) at the start of a word or a camelCase part.

    The first character is matched by a class and the rest chosen by a lookbehind on it, so
    the regex starts with a character class that `re` can scan for.
    """
    by_first: dict[str, list[str]] = {}
    for name in names:
        by_first.setdefault(name[0], []).append(name[1:])
    firsts = "".join(sorted({case for first in by_first for case in (first, first.upper())}))
    branches = "|".join(
        f"(?<=[{first}{first.upper()}])(?i:{'|'.join(rests)})" for first, rests in by_first.items()
    )
    word_start = r"(?:(?<![A-Za-z0-9].)|(?<=[a-z0-9][A-Z]))"
    return f"[{firsts}]{word_start}(?:{branches})"


# An unquoted value: printable ASCII except quotes, backtick, comma, semicolon and "&".
_BARE_VALUE = r"""[^\x00-\x20"'`,;&\x7f-\U0010ffff]"""
_SECRET = (
    _key_name_regex(_SECRET_KEY_NAMES) + r"""["']?[ \t]*(?:=>|:=|[:=：])[ \t]*["']?"""
    r"(?P<value>"
    r'(?<=")[^"\r\n]{1,200}(?=")'
    r"|(?<=')[^'\r\n]{1,200}(?=')"
    r"""|(?<!["'])""" + _BARE_VALUE + r"{3,200})"
)

_EMAIL_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_EMAIL = (
    _starting("[A-Za-z0-9]", not_after="A-Za-z0-9._%+-")
    + r"[A-Za-z0-9._%+-]{0,63}@"
    + _EMAIL_LABEL
    + r"(?:\."
    + _EMAIL_LABEL
    + r"){0,8}\.[A-Za-z]{2,24}"
    # Never part of a longer domain; not "git@github.com:owner/repo", an SSH remote.
    + r"(?![A-Za-z0-9_-]|\.[A-Za-z0-9]|:[\w~/])"
)

_CARD = (
    _starting("[2-6]", not_after=_NUMBER)
    + r"(?:\d{3}(?P<sep4>[ -])\d{4}(?P=sep4)\d{4}(?P=sep4)\d{4}(?:(?P=sep4)\d{3})?"
    r"|\d{3}(?P<sep6>[ -])\d{6}(?P=sep6)\d{4,5}"
    r"|\d{12,18})"
    r"(?![A-Za-z0-9_])"
)

_PHONE = (
    _starting(r"[+(0-9]", not_after=_NUMBER) + r"(?:"
    # International: "+" and a country code, then 8-15 digits in all (checked in Python).
    r"(?<=\+)[1-9][\d ().-]{6,22}\d"
    # Chinese mobile: 13812345678, 138 1234 5678, 138-1234-5678.
    r"|(?<=1)[3-9]\d(?:\d{8}|(?P<cn>[ -])\d{4}(?P=cn)\d{4})"
    # North American: (555) 123-4567, 555-123-4567, 555.123.4567.
    r"|(?<=\()[2-9]\d{2}\)[ .-]?[2-9]\d{2}[ .-]\d{4}"
    r"|(?<=[2-9])\d{2}[ .-][2-9]\d{2}[ .-]\d{4}"
    # French: 06 12 34 56 78, 06.12.34.56.78.
    r"|(?<=0)[1-9](?:[ .]\d{2}){4}"
    # Trunk-prefix national numbers: 020 7946 0958, 010-12345678, 0755-1234-5678.
    r"|(?<=0)\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}"
    r")" + _NUMBER_END
)


def _pattern(
    name: str, regex: str, validate: Callable[[str], bool] | None = None
) -> RedactionPattern:
    return RedactionPattern(name, re.compile(regex), validate)


DEFAULT_PATTERNS: tuple[RedactionPattern, ...] = (
    _pattern("private_key", _PRIVATE_KEY),
    _pattern("anthropic_api_key", _starting("sk-ant-") + "[A-Za-z0-9_-]{20,}"),
    _pattern(
        "openai_api_key",
        _starting("sk-") + "(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        _has_letter_and_digit,
    ),
    _pattern(
        "github_token",
        _starting("g", not_after="A-Za-z0-9_")
        + "(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})",
    ),
    _pattern("slack_token", _starting("xox") + "[baprs]-[A-Za-z0-9-]{10,}"),
    _pattern(
        "aws_access_key_id",
        _starting("A", not_after="A-Za-z0-9") + "(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
    ),
    _pattern(
        "aws_secret_access_key",
        r"(?i:aws_?secret_?access_?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    ),
    _pattern("google_api_key", _starting("AIza") + "[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    _pattern(
        "stripe_key", _starting("[sr]k_", not_after="A-Za-z0-9_") + "(?:live|test)_[0-9A-Za-z]{16,}"
    ),
    _pattern(
        "jwt",
        _starting("eyJ") + r"[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    ),
    _pattern(
        "bearer_token",
        _starting("(?i:bearer)", not_after="A-Za-z0-9_")
        + r"[ \t]+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)",
        _has_letter_and_digit,
    ),
    _pattern(
        "url_credentials",
        r"://[^\s:/@]{1,64}:(?P<value>[^\s:/@]{1,128})@",
    ),
    _pattern("secret", _SECRET),
    _pattern("payment_card", _CARD, _luhn_valid),
    _pattern("email", _EMAIL),
    _pattern("phone", _PHONE, _valid_phone),
)
"""The built-in patterns, in the order they are applied."""
