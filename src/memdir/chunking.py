"""Split memory text into chunks with exact 1-based line ranges.

Two strategies (``chunking.strategy``): ``structure`` (the default, :func:`chunk_markdown`)
cuts Markdown at its headings and gives each chunk its heading path and date; ``window``
(:func:`chunk_text`) packs lines into overlapping windows, as OpenClaw does.

The window algorithm follows OpenClaw's ``chunkMarkdown`` (spec §2): lines are packed into a chunk
until it would exceed ``tokens × 4`` weighted characters (a CJK character weighs 4, so a chunk of
Chinese holds about as many tokens as one of English); the next chunk starts with the last whole
lines worth at least ``overlap × 4`` characters of the previous one. A line longer than a chunk is
cut into pieces that keep its line number.

Two upstream flaws are fixed here: a chunk made only of carried-over overlap lines is never
emitted (upstream emits a near-duplicate chunk whenever a long line follows the overlap), and the
pieces of one long line are re-joined without inventing newlines that the file does not have.

Session transcripts (JSONL, OpenClaw's or Claude Code's) are flattened to one ``User: …`` /
``Assistant: …`` line per message with a map back to JSONL line numbers, so citations point into
the transcript itself. :func:`chunk_session` windows them and names each chunk after its
transcript, the messages it holds and its first date.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, tzinfo

from memdir.dates import file_date, heading_date, marker_date
from memdir.markdown import Heading, MarkdownDoc, is_list_item, read_markdown
from memdir.text import replace_surrogates, weighted_length

__all__ = [
    "NOT_JSON",
    "STRATEGIES",
    "Chunk",
    "SessionText",
    "chunk_markdown",
    "chunk_session",
    "chunk_text",
    "embed_input",
    "flatten_session",
    "line_inputs",
    "make_chunk",
    "message_range",
    "parse_jsonl_line",
    "sha256_hex",
    "split_lines",
    "timestamp_ms",
]

STRATEGIES = ("structure", "window")
"""The values of ``chunking.strategy``."""


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a file: ``text`` spans lines ``start_line``..``end_line`` (1-based, inclusive).

    ``context`` is the chunk's heading path (``2026-08-04 › 14:05 - relay``), empty for window
    chunks; ``date`` (``YYYY-MM-DD``) is the day the chunk speaks of, when one is known.
    ``hash`` covers the context and the text (:func:`embed_input`): it keys the embedding cache.
    """

    start_line: int
    end_line: int
    text: str
    hash: str
    context: str = ""
    date: str | None = None


def embed_input(context: str, text: str) -> str:
    """What a chunk's vector is made from, and its hash covers: ``context`` + newline + ``text``
    (only ``text`` when there is no context, so window chunks hash as they always did)."""
    return f"{context}\n{text}" if context else text


LINE_MIN_CHARS = 6
"""A line is embedded on its own (:func:`line_inputs`) when it has at least this many
characters besides spaces and list and table marks (``- ``, ``|``, ``:``)."""


def line_inputs(context: str, text: str) -> list[str]:
    """What each line of a chunk is embedded as: the chunk's context, a newline and the line
    (:func:`embed_input`), for each line worth a vector of its own (:data:`LINE_MIN_CHARS`;
    an entry's heading too: ``### 11:40 - p99 alert threshold`` names what the entry is
    about); none when fewer than two lines are, as the chunk's own vector stands for one line.

    A chunk is one entry or a day's list, and its one vector stands for every item of it; a
    question about one item lies nearer that item's line (see
    ``memdir.search.engine._with_best_lines``)."""
    lines = [ln.strip() for ln in text.split("\n")]
    kept = [ln for ln in lines if len(ln.strip("-|: ")) >= LINE_MIN_CHARS]
    if len(kept) < 2:
        return []
    return [embed_input(context, ln) for ln in kept]


def make_chunk(
    start_line: int, end_line: int, text: str, *, context: str = "", date: str | None = None
) -> Chunk:
    return Chunk(start_line, end_line, text, sha256_hex(embed_input(context, text)), context, date)


def split_lines(text: str) -> list[str]:
    """Lines without terminators. ``\\r\\n`` is one line break, and the newline that ends
    the last line does not start another: ``"a\\n"`` is one line, as editors number it."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _segments(line: str, max_chars: int, tokens: int) -> list[str]:
    """A line cut so that no piece is longer than a chunk; CJK-heavy slices are cut finer."""
    if not line:
        return [""]
    pieces: list[str] = []
    for start in range(0, len(line), max_chars):
        coarse = line[start : start + max_chars]
        if weighted_length(coarse) > max_chars:
            step = max(1, tokens)
            pieces.extend(coarse[i : i + step] for i in range(0, len(coarse), step))
        else:
            pieces.append(coarse)
    return pieces


def _join(segments: list[tuple[str, int]]) -> str:
    """Join segments, with a newline only where the line number changes."""
    out: list[str] = []
    previous = None
    for text, line_no in segments:
        if previous is not None and line_no != previous:
            out.append("\n")
        out.append(text)
        previous = line_no
    return "".join(out)


def chunk_text(text: str, *, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    """Chunk ``text``; chunks whose text is only whitespace are dropped."""
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    chunks: list[Chunk] = []
    current: list[tuple[str, int]] = []
    sizes: list[int] = []
    carried = 0  # how many leading segments of `current` came from the previous chunk

    def flush() -> None:
        body = _join(current)
        if body.strip():
            chunks.append(Chunk(current[0][1], current[-1][1], body, sha256_hex(body)))

    def carry_overlap() -> int:
        if overlap_chars == 0:
            current.clear()
            sizes.clear()
            return 0
        total, keep = 0, 0
        for size in reversed(sizes):
            total += size
            keep += 1
            if total >= overlap_chars:
                break
        del current[: len(current) - keep]
        del sizes[: len(sizes) - keep]
        return keep

    total = 0  # == sum(sizes), kept up to date instead of re-summed for every line
    for line_no, line in enumerate(split_lines(text), start=1):
        for segment in _segments(line, max_chars, tokens):
            size = weighted_length(segment) + 1
            if current and total + size > max_chars:
                if len(current) > carried:
                    flush()
                    carried = carry_overlap()
                    total = sum(sizes)
                while current and total + size > max_chars:
                    current.pop(0)
                    total -= sizes.pop(0)
                    carried -= 1
                carried = max(carried, 0)
            current.append((segment, line_no))
            sizes.append(size)
            total += size
    if current and len(current) > carried:
        flush()
    return chunks


@dataclass(frozen=True, slots=True)
class SessionText:
    """A transcript flattened to one line per message; ``line_map[i]`` is the JSONL line of line i+1."""

    text: str
    line_map: tuple[int, ...]
    timestamps_ms: tuple[int, ...]
    bad_lines: tuple[int, ...] = ()
    """JSONL lines (1-based) that are not valid JSON, and so were skipped."""

    def remap(self, chunk: Chunk) -> Chunk:
        """Map a chunk's line range from flattened lines to JSONL line numbers."""

        def at(n: int) -> int:
            return self.line_map[n - 1] if 0 < n <= len(self.line_map) else n

        return replace(chunk, start_line=at(chunk.start_line), end_line=at(chunk.end_line))


_WS = re.compile(r"\s+")
_MAX_MS = 2**63 - 1  # a signed 64-bit integer, as SQLite stores it
NOT_JSON = object()
"""What :func:`parse_jsonl_line` returns for a line that is not valid JSON."""


def _message_text(content: object) -> str:
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [
            _WS.sub(" ", block["text"]).strip()
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
        return " ".join(p for p in parts if p)
    return ""


def timestamp_ms(value: object) -> int:
    """Milliseconds since the epoch (numbers below 1e11 are seconds, strings ISO 8601), or 0
    for anything else: a bool, a non-finite or out-of-range number, an unparseable string."""
    ms: float | int
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return 0
        ms = value * 1000 if value < 1e11 else value
    elif isinstance(value, str):
        try:
            ms = datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
        except (ValueError, OverflowError, OSError):
            return 0
    else:
        return 0
    return int(ms) if -_MAX_MS <= ms <= _MAX_MS else 0


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def parse_jsonl_line(line: str) -> object:
    """The JSON value of one transcript line, or ``NOT_JSON`` if it is not valid JSON.

    As in JavaScript's ``JSON.parse``: ``NaN`` and ``Infinity`` are refused, and so are raw
    control characters (a NUL byte) inside strings. Nesting too deep to parse counts as invalid.
    """
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return NOT_JSON


def flatten_session(raw: str, *, redact: Callable[[str], str] | None = None) -> SessionText:
    """Flatten an OpenClaw-style JSONL transcript (spec §1.5), or a Claude Code one.

    Only ``{"type": "message"}`` records from ``user`` or ``assistant`` are kept; blank lines
    are skipped, and so are lines that are not valid JSON, which are listed in ``bad_lines``.
    Text blocks have their whitespace collapsed so each message is exactly one line, which
    ``redact`` (e.g. :meth:`memdir.redact.Redactor.redact`) then masks secrets in, as upstream
    redacts transcripts before indexing them. A file whose records are mostly Claude Code's
    (``{"type": "user"|"assistant", "message": …}``) is read as Claude Code writes it.
    """
    lines: list[str] = []
    line_map: list[int] = []
    stamps: list[int] = []
    bad: list[int] = []
    openclaw = claude = 0
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        record = parse_jsonl_line(line)
        if record is NOT_JSON:
            bad.append(number)
            continue
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if kind in ("session", "message", "compaction"):
            openclaw += 1
        elif kind in ("user", "assistant") and isinstance(record.get("message"), dict):
            claude += 1
        if kind != "message":
            continue
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        text = _WS.sub(" ", _message_text(message.get("content"))).strip()
        if not text:
            continue
        label = "User" if message["role"] == "user" else "Assistant"
        text = replace_surrogates(text)
        lines.append(f"{label}: {redact(text) if redact else text}")
        line_map.append(number)
        stamps.append(timestamp_ms(message.get("timestamp", record.get("timestamp"))))
    if claude > openclaw:
        return _flatten_claude_code(raw, redact)
    return SessionText("\n".join(lines), tuple(line_map), tuple(stamps), tuple(bad))


def _flatten_claude_code(raw: str, redact: Callable[[str], str] | None) -> SessionText:
    """A Claude Code transcript, read by :func:`memdir.sessions.parse_transcript` (its notes,
    sub-agent turns, tool results and command output left out, one answer written as several
    records joined back into one message), flattened as OpenClaw's: a line per message."""
    from memdir.sessions.transcript import parse_transcript  # only for Claude Code transcripts

    transcript = parse_transcript(raw)
    lines: list[str] = []
    line_map: list[int] = []
    stamps: list[int] = []
    for message in transcript.conversation:
        text = _WS.sub(" ", message.text).strip()
        label = "User" if message.role == "user" else "Assistant"
        lines.append(f"{label}: {redact(text) if redact else text}")
        line_map.append(message.line)
        stamps.append(message.timestamp_ms)
    bad = transcript.bad_lines
    if transcript.torn_line is not None:
        bad = (*bad, transcript.torn_line)
    return SessionText("\n".join(lines), tuple(line_map), tuple(stamps), bad)


def chunk_session(
    session: SessionText,
    *,
    name: str,
    tokens: int = 400,
    overlap: int = 80,
    zone: tzinfo | None = None,
) -> list[Chunk]:
    """Window a flattened transcript; every chunk gets the context ``session <name> › messages
    <first>–<last>`` (the messages it holds, counted from 1 among the messages kept, so
    ``message 5`` for one) and the date (in ``zone``, else the system's) of its first message
    that has a timestamp."""
    chunks = []
    for c in chunk_text(session.text, tokens=tokens, overlap=overlap):
        stamps = [ms for ms in session.timestamps_ms[c.start_line - 1 : c.end_line] if ms]
        context = f"session {name}{_SEP}{message_range(c.start_line, c.end_line)}"
        day = _day_of_ms(stamps[0], zone) if stamps else None
        chunks.append(
            session.remap(make_chunk(c.start_line, c.end_line, c.text, context=context, date=day))
        )
    return chunks


def message_range(first: int, last: int) -> str:
    """``messages 5–12``, or ``message 5`` for one."""
    return f"message {first}" if first >= last else f"messages {first}–{last}"


def _day_of_ms(ms: int, zone: tzinfo | None) -> str | None:
    try:
        moment = (
            datetime.fromtimestamp(ms / 1000, zone) if zone else datetime.fromtimestamp(ms / 1000)
        )
    except (OverflowError, OSError, ValueError):
        return None
    return moment.date().isoformat()


# -- structure-aware chunking of Markdown ----------------------------------------------------

_SEP = " › "

# How good a place the start of a line is to begin a chunk: lower is better.
_BLANK, _ITEM, _LINE, _IN_FENCE, _IN_LINE = range(5)
_MIN_FILL = 4  # a preferred cut point is used only if the chunk before it holds ≥ 1/4 of a chunk

SECTION_SLACK = 1.25
"""A heading section up to this many times ``tokens`` stays one chunk when each of its lines is
at most half a chunk (a list, a log's entries, a table). Cut at ``tokens``, one a little over
it left a second piece of its last lines, mostly the overlap it repeats, and the line a
question asked about fell in one piece while the other ranked first: a day's list of nine
items and a quoted reply, cut at line 9, lost `週次フィード hoshimi_weekly のチケット番号は？`
its first place (the ticket on line 11). bench/agentmem, tuning halves, the engineer's: hybrid
hit@1 / R@5 / MRR@10 .523 / .779 / .648 → .535 / .779 / .652, keyword .430 / .657 / .542 →
.442 / .663 / .549; the designer's unmoved. A section of long lines (prose, a paper's abstract
in a paragraph or two) is cut inside them anyway, and its pieces match a question about one
part better: kept whole too, SciFact hybrid nDCG@10 went .732 → .722; as it is, .729 (keyword
.688 → .687, R@100 .907 → .914). ``tokens`` 500 in place of the slack cost LoCoMo's daily
files (evidence within 500 tokens) 65.7 → 61.9 %, every session a little longer cut into
larger pieces; with the slack 66.0 / 77.3 / 85.8 % at 500 / 1,000 / 2,000 tokens (65.7 / 77.4
/ 85.9 before). XQuAD unmoved."""


@dataclass(frozen=True, slots=True)
class _Section:
    start: int  # 0-based, inclusive: the heading line, or the first line of text before any
    end: int  # exclusive
    path: tuple[Heading, ...]  # the headings it lies under, its own (if any) last
    own: Heading | None


def _sections(doc: MarkdownDoc) -> list[_Section]:
    """Text before the first heading, then one section per heading that has a body (or no
    subsection either: a one-line entry); a heading followed only by subsections has none."""
    lines = doc.lines
    out: list[_Section] = []
    starts = [h.line for h in doc.headings]
    first = starts[0] if starts else len(lines)
    if any(line.strip() for line in lines[doc.body_start : first]):
        out.append(_Section(doc.body_start, first, (), None))
    stack: list[Heading] = []
    for n, h in enumerate(doc.headings):
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        has_body = any(line.strip() for line in lines[h.line + 1 : end])
        has_child = n + 1 < len(starts) and doc.headings[n + 1].level > h.level
        if has_body or not has_child:
            out.append(_Section(h.line, end, tuple(stack), h))
    return out


def _cut_rank(doc: MarkdownDoc, i: int) -> int:
    """How good a cut point the start of line ``i`` is (see ``_BLANK`` … ``_LINE``)."""
    lines = doc.lines
    if doc.in_fence[i]:
        return _IN_FENCE
    if not lines[i].strip() or (i > 0 and not lines[i - 1].strip()):
        return _BLANK
    if doc.fence_edge[i] or (i > 0 and doc.fence_edge[i - 1]):
        return _BLANK  # just before a code block opens or just after it closes
    return _ITEM if is_list_item(lines[i]) else _LINE


def _line_ranks(doc: MarkdownDoc, start: int, end: int, max_chars: int) -> list[int]:
    """The cut rank of each line ``start``..``end``; a code block too big for one chunk has to
    be cut inside anyway, so its lines rank as plain lines."""
    ranks = [_cut_rank(doc, i) for i in range(start, end)]
    i = start
    while i < end:
        j = i + 1
        if doc.fence_edge[i] and not doc.in_fence[i]:  # a block opens: find where it closes
            while j < end and doc.in_fence[j]:
                j += 1
            if sum(weighted_length(line) + 1 for line in doc.lines[i:j]) > max_chars:
                for k in range(i + 1, j):
                    ranks[k - start] = _LINE
        i = j
    return ranks


def _split(
    doc: MarkdownDoc, start: int, end: int, max_chars: int, overlap_chars: int, tokens: int
) -> list[list[tuple[str, int]]]:
    """Cut lines ``start``..``end`` (0-based, end exclusive) into pieces of at most ``max_chars``
    weighted characters, each a list of ``(segment, 1-based line number)``; lines no longer
    than half that stay one piece up to :data:`SECTION_SLACK` times it.

    Each cut goes at the best place within reach: a blank line, else the start of a top-level
    list item (either only if the piece before it holds a quarter of a chunk), else any line
    outside a fenced code block, else (the block alone is too big) any line, else inside a
    long line. A piece after a cut starts with the last lines worth ``overlap_chars`` of the
    one before, as in :func:`chunk_text`, but not inside a code block the cut left whole.
    Blank lines at either edge of a piece are left out.
    """
    lines = doc.lines
    line_ranks = _line_ranks(doc, start, end, max_chars)
    segments: list[tuple[str, int]] = []
    ranks: list[int] = []
    prefix = [0]
    widest = 0  # the weight of the longest line
    for i in range(start, end):
        before = prefix[-1]
        for k, segment in enumerate(_segments(lines[i], max_chars, tokens)):
            segments.append((segment, i + 1))
            ranks.append(_IN_LINE if k else line_ranks[i - start])
            prefix.append(prefix[-1] + weighted_length(segment) + 1)
        widest = max(widest, prefix[-1] - before)
    if max_chars < prefix[-1] <= max_chars * SECTION_SLACK and widest <= max_chars // 2:
        max_chars = prefix[-1]  # a little over the size, in short lines: no cut
    count = len(segments)
    pieces: list[list[tuple[str, int]]] = []
    last: tuple[int, int] = (-1, -1)  # the segment range of the last piece kept
    first, fresh = 0, 0  # the piece's first segment, and its first one not carried over
    while count:
        cut = _best_cut(ranks, prefix, first, fresh, max_chars)
        if cut < count and ranks[cut] >= _IN_FENCE and first < fresh:
            first = fresh  # the carried-over lines push the cut into a block: drop them
            cut = _best_cut(ranks, prefix, first, fresh, max_chars)
        a, b = first, cut - 1
        while a <= b and not lines[segments[a][1] - 1].strip():
            a += 1
        while b >= a and not lines[segments[b][1] - 1].strip():
            b -= 1
        if a <= b and not (last[0] <= a and b <= last[1]):
            pieces.append(segments[a : b + 1])
            last = (a, b)
        if cut >= count:
            break
        first = _overlap_start(ranks, prefix, first, cut, overlap_chars)
        while first < cut and prefix[cut + 1] - prefix[first] > max_chars:
            first += 1  # the next segment does not fit after the overlap: carry less
        fresh = cut
    return pieces


def _best_cut(ranks: list[int], prefix: list[int], first: int, fresh: int, max_chars: int) -> int:
    """The index of the segment the next piece starts at (``len(ranks)``: none, all fits)."""
    count = len(ranks)
    reach = max(bisect_right(prefix, prefix[first] + max_chars) - 1, fresh + 1)
    if reach >= count:
        return count
    choices = range(fresh + 1, reach + 1)
    floor = prefix[first] + max_chars // _MIN_FILL
    for rank in (_BLANK, _ITEM):
        good = [c for c in choices if ranks[c] <= rank and prefix[c] >= floor]
        if good:
            return good[-1]
    for rank in (_LINE, _IN_FENCE):
        good = [c for c in choices if ranks[c] <= rank]
        if good:
            return good[-1]
    return reach


def _overlap_start(
    ranks: list[int], prefix: list[int], first: int, cut: int, overlap_chars: int
) -> int:
    start = cut
    while start - 1 > first and prefix[cut] - prefix[start] < overlap_chars:
        start -= 1
    if ranks[cut] < _IN_FENCE:
        # The cut left a code block (or a line) whole: do not begin the next piece inside it.
        while start < cut and ranks[start] >= _IN_FENCE:
            start += 1
    return start


def _context(section: _Section, title: str, day: str | None, starts: bool) -> str:
    """The heading path: the title (the H1 the section lies under, else the document's), then
    the headings in between, then the section's own heading unless the chunk starts with it."""
    path = list(section.path)
    root = title
    if path and path[0].level == 1:
        root = path.pop(0).title or title
    if day and day not in root:
        root = f"{day} {root}"
    parts = [root, *(h.title for h in path if h is not section.own and h.title)]
    if section.own is not None and not starts and section.own.level > 1 and section.own.title:
        parts.append(section.own.title)
    return _SEP.join(parts)


def _path_title(path: str) -> str:
    """``memory/projects/relay.md`` → ``projects/relay``."""
    name = path.removeprefix("memory/")
    stem, dot, ext = name.rpartition(".")
    return stem if dot and stem and ext.lower() in ("md", "markdown") else name


def chunk_markdown(
    text: str, *, path: str, tokens: int = 400, overlap: int = 80, modified: str | None = None
) -> list[Chunk]:
    """Chunk a Markdown file by its structure (strategy ``structure``).

    Each heading section (the heading line and its body, up to the next heading of any level;
    ATX headings outside fenced code blocks) is one chunk when it fits in ``tokens``, or in
    :data:`SECTION_SLACK` times that when its lines are short, so that no cut between lines
    leaves a small last piece; text
    before the first heading (after any front matter, which is never chunked) is a section
    too. A heading followed only by its subsections is not a chunk of its own. A longer
    section is cut by :func:`_split`; a file with no headings is one section, so it is packed
    paragraph by paragraph. Line numbers are exact and ``text`` is the file's lines, without
    blank lines at either edge.

    ``context`` is the heading path, joined with " › ": the title (the H1, else front
    matter ``title:``, else the path, as ``projects/relay``; prefixed with the file's date when
    it lacks it), the headings in between, and the chunk's own heading when the chunk does
    not start with it (a later piece of a split section). ``date`` is the newest dated marker
    in the chunk (in a file without a day in its name, also a list item starting with a date
    without a year, ``- 11/05 砍掉 …``, placed in the year nearest ``modified``, the day the file
    was last modified), else the deepest date in its heading path (:func:`heading_date`: a
    heading date without a year, ``## チケット（11/26 時点）``, takes the year nearest the file's
    day, else ``modified``), else the file name's, else front matter ``date:``.
    """
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    doc = read_markdown(split_lines(text))
    title = (
        next((h.title for h in doc.headings if h.level == 1 and h.title), None)
        or doc.meta.get("title")
        or _path_title(path)
    )
    meta_day = heading_date(doc.meta.get("date", ""))
    named_day = file_date(path)
    day = named_day or meta_day
    reference = day or modified
    # a list item of a daily log that starts with another day is a plan or a deadline; in a
    # note without a day in its name it is an entry of the note's log
    item_reference = None if named_day else modified or meta_day
    chunks: list[Chunk] = []
    for section in _sections(doc):
        heading_day = next(
            (d for h in reversed(section.path) if (d := heading_date(h.title, reference))), None
        )
        for piece in _split(doc, section.start, section.end, max_chars, overlap_chars, tokens):
            body = _join(piece)
            starts = section.own is not None and piece[0][1] == section.own.line + 1
            chunks.append(
                make_chunk(
                    piece[0][1],
                    piece[-1][1],
                    body,
                    context=_context(section, title, day, starts),
                    date=marker_date(body, item_reference) or heading_day or day,
                )
            )
    return chunks
