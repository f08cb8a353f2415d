"""What structure-aware chunking reads from a Markdown file: front matter, code fences,
headings and list items.

Only as much Markdown as chunking needs: ATX headings (``#`` … ``######``, at most three spaces
of indent, not inside a fenced code block), fenced code blocks (````` and ``~~~``, closed by
a fence of the same character at least as long, or open to the end of the file) and a YAML front
matter block at the very top (its top-level ``key: value`` lines). The dates a note or a
question names are read by :mod:`memdir.dates`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Heading", "MarkdownDoc", "is_list_item", "read_markdown"]

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}(?=[^`]*$)|~{3,})")
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_YAML_LINE = re.compile(
    r"[A-Za-z_][\w.-]*[ \t]*:(?:[ \t].*)?$|[ \t]+\S.*|-(?:[ \t].*)?$|#.*|[ \t]*$"
)
_YAML_KEY = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(.*)")


def is_list_item(line: str) -> bool:
    """Whether ``line`` starts a top-level list item (``- ``, ``* ``, ``+ ``, ``1. ``, ``1) ``)."""
    return _LIST_ITEM.match(line) is not None


@dataclass(frozen=True, slots=True)
class Heading:
    line: int  # 0-based index into the file's lines
    level: int
    title: str


@dataclass(slots=True)
class MarkdownDoc:
    """A Markdown file's lines, where its code fences are, and its headings."""

    lines: list[str]
    body_start: int  # the first line after the front matter
    in_fence: list[bool]  # the line is inside a fenced code block (after its opening line)
    fence_edge: list[bool]  # the line opens or closes a fenced code block
    headings: list[Heading]
    meta: dict[str, str]  # the front matter's top-level keys (lower case) and values


def _front_matter(lines: list[str]) -> tuple[int, dict[str, str]]:
    """``(first line after it, its top-level keys)`` of a YAML front matter block, if any.

    Only a block whose every line looks like YAML (``key: value``, an indented or ``- `` line, a
    comment) counts: a note that merely opens with a ``---`` rule keeps its text.
    """
    if not lines or lines[0].strip() != "---":
        return 0, {}
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
        if not _YAML_LINE.match(lines[end]):
            return 0, {}
    else:
        return 0, {}
    meta: dict[str, str] = {}
    for line in lines[1:end]:
        if m := _YAML_KEY.match(line):
            meta.setdefault(m.group(1).lower(), m.group(2).strip().strip("\"'").strip())
    return end + 1, meta


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a code block opened by ``fence``: at most 3 spaces of indent, then
    only the fence's character, at least as many times."""
    mark = line.lstrip(" ")
    bare = mark.rstrip(" \t")
    return len(line) - len(mark) <= 3 and bare.startswith(fence) and bare == fence[0] * len(bare)


def read_markdown(lines: list[str]) -> MarkdownDoc:
    """Read the structure of a file split into ``lines`` (without line terminators)."""
    body_start, meta = _front_matter(lines)
    in_fence = [False] * len(lines)
    edge = [False] * len(lines)
    headings: list[Heading] = []
    fence: str | None = None  # the opening fence's characters, while inside one
    for i in range(body_start, len(lines)):
        line = lines[i]
        head = line.lstrip(" ")
        if fence is not None:
            in_fence[i] = True
            if _closes(line, fence):
                fence = None
                edge[i] = True
            continue
        if head[:1] in ("`", "~") and (m := _FENCE_OPEN.match(line)):
            fence = m.group(1)
            edge[i] = True
        elif head[:1] == "#" and (m := _ATX.fullmatch(line)):
            headings.append(Heading(i, len(m.group(1)), (m.group(2) or "").strip()))
    return MarkdownDoc(lines, body_start, in_fence, edge, headings, meta)
