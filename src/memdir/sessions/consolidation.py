"""Consolidation (seed 002's ``LongTermMemory.consolidate``): recent daily files into
``MEMORY.md``, proposed first, written only when asked.

:func:`consolidate` reads the daily files of the last ``days`` days, today included, dated in
the user's time zone (``memory/YYYY-MM-DD.md`` and the session-memory files
``memory/YYYY-MM-DD-<slug>.md``), and returns a :class:`Proposal`: the updated text, a unified
diff, the lines added and the lines marked superseded. It writes nothing;
:func:`apply_proposal` does. Nothing is ever silently deleted:

* **With a model**, the model returns the whole updated file. Every non-blank line of the
  current file must still be in it (white space aside), or be marked superseded: its text
  struck through and the replacement dated, ``- ~~Database: MySQL~~ (superseded 2026-10-28:
  PostgreSQL)``. An answer that drops or rewrites a line, or that was cut short at
  ``max_tokens``, is refused: :attr:`Proposal.refused` says why and the proposal changes
  nothing. ``NO_REPLY`` means there is nothing to change. When the model fails
  (:class:`~memdir.errors.LLMError`), the extractive fallback proposes instead and the
  warnings say so.
* **Without a model** (the :class:`~memdir.llm.ExtractiveSummarizer`), facts are only added:
  the sentences of the daily files that the summariser scores 3 or more (a decision, a
  preference, a to-do; an identifier or config value with a number; a name or a number with
  a date; see :func:`memdir.llm.extractive.sentence_score`), questions and the assistant's
  side of a conversation left out, as ``- YYYY-MM-DD: sentence`` (the daily file's date)
  under an ``## Appended`` heading at the end of the file (the same one when the file already
  ends with it). A fact the file already says, compared case-, width- and punctuation-blind
  with its date ignored (or contained in one of its lines, when 16 letters or digits or
  longer), is left out, so a second run proposes nothing new. At most ``max_facts`` are
  proposed at a time, the highest-scoring (later ones on a tie); the rest come next time.

:func:`apply_proposal` keeps the current file as ``.memdir/backups/MEMORY.md.<UTC time>``,
then replaces it atomically (:func:`memdir.writer.replace_text`), refusing when it changed
since the proposal was made, and re-indexes it. The long-term file is ``MEMORY.md``, or
``memory.md`` when that is the one the workspace has.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from memdir.config import STATE_DIRNAME, Config
from memdir.errors import LLMError, StorageError, UsageError
from memdir.llm.chat import NO_REPLY, ChatModel, Message
from memdir.llm.extractive import ExtractiveSummarizer, sentence_score, split_sentences
from memdir.sessions.flush import _silent, estimate_tokens
from memdir.sessions.notes import KnownLines, _key, clean_reply, read_text, target, user_zone
from memdir.text import weighted_length

__all__ = [
    "APPENDED_HEADING",
    "Applied",
    "DailyFile",
    "Proposal",
    "Superseded",
    "aapply_proposal",
    "aconsolidate",
    "apply_proposal",
    "check_update",
    "consolidate",
    "daily_files",
    "durable_facts",
]

APPENDED_HEADING = "## Appended"
"""The heading the extractive fallback adds its facts under."""
BACKUP_DIR = f"{STATE_DIRNAME}/backups"
"""Where :func:`apply_proposal` keeps the previous versions, relative to the workspace."""
INPUT_TOKENS = 24_000
"""How much of the daily files a model is sent, newest first, in tokens."""
MAX_FACTS = 50
MIN_SCORE = 3
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

SYSTEM_PROMPT = (
    "You maintain {name}, a person's curated long-term memory, in plain Markdown. "
    "Your reply replaces the file as it is: reply with the complete updated file only, "
    f"no commentary and no code fence, or {NO_REPLY} when nothing needs to change."
)
PROMPT = """Update {name} from the daily memory files of the last {days} days (below).

1. Add the durable facts the daily files hold and {name} lacks: decisions, preferences and habits, configuration values, facts about people and projects, dates and commitments. One short line each, with its date ("- YYYY-MM-DD: fact"), under the heading it belongs to or under "{appended}" at the end.
2. Keep every existing line of {name} exactly as it is. Never delete, merge or reword one.
3. When a daily file supersedes an existing line (a decision changed, a value replaced), keep that line and mark it: strike its text through with ~~ and add the date and the new fact, e.g. "- ~~Database: MySQL~~ (superseded 2026-10-28: PostgreSQL)".
4. Leave out small talk, one-off events and anything {name} already says.

If nothing needs to change, reply with {no_reply}.
Today is {today}.

Daily files, oldest first:

{daily}

The current {name}:
<<<
{current}
>>>"""

_DAY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[^/\\]+)?\.md$")
_LIST = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+•]|\d{1,3}[.)])\s+)?(?:\[[ xX]\]\s+)?")
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}\s*[:：]\s*")
_ROLE = re.compile(r"^(user|assistant)\s*:\s+", re.IGNORECASE)
_SESSION_META = re.compile(r"^\s*[-*]\s+\*\*(?:Session ID|Source|Ended by)\*\*:")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_QUESTION = re.compile(r"[?？]\W*$")
_MARKED = re.compile(
    r"~~(?P<old>.+?)~~\s*\(\s*superseded\s+(?P<date>\d{4}-\d{2}-\d{2})\b(?P<rest>[^)]*)\)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class DailyFile:
    """One daily file read: its workspace-relative ``path``, ``date`` and ``text``."""

    path: str
    date: str
    text: str


@dataclass(frozen=True, slots=True)
class Superseded:
    """A line of the old file marked superseded: the ``old`` line, the ``line`` that now
    stands for it (struck through, with the replacement) and the ``date`` it gives."""

    old: str
    line: str
    date: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Proposal:
    """An updated long-term memory file, not written yet (see the module docstring).

    ``path`` is ``MEMORY.md`` (or ``memory.md``); ``old_text`` what it holds now ("" and
    ``existed`` false when there is none), ``new_text`` the proposal and ``diff`` the unified
    diff between them ("" when nothing changes). ``added`` are the new lines (headings aside),
    ``superseded`` the old lines marked superseded; ``files`` the daily files read, from
    ``since`` to ``until``. ``provider``/``model`` made it; ``fallback`` is set, with
    ``fallback_reason``, when the extractive fallback did. ``refused`` says why a model's
    answer was not accepted (then ``new_text == old_text``).
    """

    path: str
    old_text: str
    new_text: str
    diff: str
    added: tuple[str, ...]
    superseded: tuple[Superseded, ...]
    files: tuple[str, ...]
    days: int
    since: str
    until: str
    provider: str
    model: str
    fallback: bool = False
    fallback_reason: str = ""
    refused: str = ""
    existed: bool = True
    warnings: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether writing the proposal would change the file."""
        return not self.refused and self.new_text != self.old_text

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["changed"] = self.changed
        return data


@dataclass(frozen=True, slots=True)
class Applied:
    """What :func:`apply_proposal` did: ``written`` to ``path``, the previous version kept as
    ``backup`` (workspace-relative; "" when there was no file before)."""

    written: bool
    path: str
    backup: str = ""
    warnings: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- reading ------------------------------------------------------------------------------------
def memory_file(root: Path) -> str:
    """``MEMORY.md``, or ``memory.md`` when only that one exists (as ``memory_write`` picks)."""
    try:
        names = {p.name for p in root.iterdir()}
    except OSError:
        names = set()
    return "memory.md" if "memory.md" in names and "MEMORY.md" not in names else "MEMORY.md"


def daily_files(
    config: Config, *, days: int, today: date, warnings: list[str] | None = None
) -> list[DailyFile]:
    """The daily and session-memory files under ``memory/`` dated ``today`` or up to
    ``days - 1`` days before, oldest first. Symlinks and unreadable files are skipped (and
    said in ``warnings``)."""
    folder = config.workspace / "memory"
    first = today - timedelta(days=days - 1)
    found: list[DailyFile] = []
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise StorageError(f"cannot list {folder}: {exc.strerror}") from exc
    for path in entries:
        match = _DAY_NAME.match(path.name)
        if match is None:
            continue
        try:
            day = date.fromisoformat(match.group(1))
        except ValueError:
            continue
        if not first <= day <= today:
            continue
        rel = f"memory/{path.name}"
        if path.is_symlink() or not path.is_file():
            if warnings is not None:
                warnings.append(f"skipped {rel}: not a regular file")
            continue
        try:
            text = read_text(path)
        except StorageError as exc:
            if warnings is not None:
                warnings.append(f"skipped {rel}: {exc.message}")
            continue
        found.append(DailyFile(rel, day.isoformat(), text))
    found.sort(key=lambda f: (f.date, f.path))
    return found


# -- the extractive proposal --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Fact:
    date: str
    text: str
    score: int
    position: int


def _fact_key(line: str) -> str:
    """A line compared as a fact: list marker and leading ``YYYY-MM-DD:`` dropped."""
    text = _LIST.sub("", line, count=1).strip()
    return _key(_DATED.sub("", text, count=1))


def durable_facts(day: DailyFile) -> list[tuple[str, int]]:
    """The sentences of a daily file worth keeping for good, with their scores, in order
    (see the module docstring)."""
    out: list[tuple[str, int]] = []
    for raw in day.text.splitlines():
        if _SESSION_META.match(raw):
            continue
        role = _ROLE.match(_LIST.sub("", raw, count=1))
        if role is not None and role.group(1).lower() == "assistant":
            continue
        for i, sentence in enumerate(split_sentences(raw)):
            if i == 0:
                sentence = _ROLE.sub("", sentence, count=1)
            if weighted_length(sentence) < 8 or _QUESTION.search(sentence):
                continue
            score = sentence_score(sentence)
            if score >= MIN_SCORE:
                out.append((sentence, score))
    return out


def _extractive_update(
    old: str, files: Sequence[DailyFile], max_facts: int
) -> tuple[str, list[str], list[str]]:
    """The fallback's new text, the lines it adds, and warnings."""
    known = KnownLines(map(_fact_key, old.splitlines()))
    facts: list[_Fact] = []
    for day in files:
        for sentence, score in durable_facts(day):
            if not known.add(_fact_key(sentence)):
                continue
            facts.append(_Fact(day.date, sentence, score, len(facts)))
    warnings = []
    if len(facts) > max_facts:
        keep = sorted(facts, key=lambda f: (-f.score, -f.position))[:max_facts]
        warnings.append(
            f"{len(facts) - max_facts} more facts were left for the next run "
            f"(at most {max_facts} are proposed at a time)"
        )
        facts = sorted(keep, key=lambda f: f.position)
    added = [f"- {f.date}: {f.text}" for f in facts]
    return _append_section(old, added), added, warnings


def _append_section(old: str, lines: Sequence[str]) -> str:
    if not lines:
        return old
    base = old.rstrip() or "# Memory"
    headings = [m for m in map(_HEADING.match, base.splitlines()) if m]
    last = headings[-1] if headings else None
    if last is not None and f"{last.group(1)} {last.group(2)}" == APPENDED_HEADING:
        if _HEADING.match(base.splitlines()[-1]):
            return f"{base}\n\n" + "\n".join(lines) + "\n"
        return f"{base}\n" + "\n".join(lines) + "\n"
    return f"{base}\n\n{APPENDED_HEADING}\n\n" + "\n".join(lines) + "\n"


# -- the model's proposal -----------------------------------------------------------------------
def _flat(line: str) -> str:
    return " ".join(line.split())


def check_update(old: str, new: str) -> tuple[list[str], list[Superseded], list[str]]:
    """Compare a proposed ``new`` file with the ``old``: the old lines it lost (neither kept
    nor marked superseded), the lines it marks superseded, and the lines it adds (headings
    aside). White space inside a line does not count."""
    remaining = Counter(_flat(line) for line in new.splitlines() if line.strip())
    marked = [_flat(line) for line in new.splitlines() if _MARKED.search(line)]
    missing: list[str] = []
    superseded: list[Superseded] = []
    for line in old.splitlines():
        flat = _flat(line)
        if not flat:
            continue
        if remaining[flat] > 0:
            remaining[flat] -= 1
            continue
        content = _flat(_LIST.sub("", line, count=1))
        hit = next(
            (
                m
                for m in marked
                if remaining[m] > 0
                and any(_flat(x.group("old")) == content for x in _MARKED.finditer(m))
            ),
            None,
        )
        if hit is None:
            missing.append(line.rstrip())
            continue
        remaining[hit] -= 1
        found = next(x for x in _MARKED.finditer(hit) if _flat(x.group("old")) == content)
        superseded.append(Superseded(line.rstrip(), hit, found.group("date")))
    added = []
    for line in new.splitlines():
        flat = _flat(line)
        if flat and remaining[flat] > 0:
            remaining[flat] -= 1
            if not _HEADING.match(line):
                added.append(line.rstrip())
    return missing, superseded, added


def _render_daily(files: Sequence[DailyFile], budget: int) -> tuple[str, int]:
    """The daily files as ``### path`` sections, the newest that fit ``budget`` tokens, and how
    many older ones did not fit."""
    kept: list[str] = []
    spent = 0
    for day in reversed(files):
        block = f"### {day.path}\n{day.text.strip()}"
        cost = estimate_tokens(block) + 2
        if kept and spent + cost > budget:
            break
        kept.append(block)
        spent += cost
    return "\n\n".join(reversed(kept)), len(files) - len(kept)


def _model_update(
    model: ChatModel,
    name: str,
    old: str,
    files: Sequence[DailyFile],
    *,
    days: int,
    today: str,
    input_tokens: int,
) -> tuple[str, str, list[str]]:
    """The model's new text ("" when silent), a refusal ("" when accepted), and warnings.
    :class:`LLMError` passes through."""
    warnings: list[str] = []
    daily, dropped = _render_daily(files, input_tokens)
    if dropped:
        warnings.append(f"{dropped} older daily files did not fit the model's input; left out")
    prompt = PROMPT.format(
        name=name,
        days=days,
        appended=APPENDED_HEADING,
        no_reply=NO_REPLY,
        today=today,
        daily=daily,
        current=old.strip() or "(empty: the file does not exist yet)",
    )
    answer = model.complete(
        [Message("user", prompt)],
        system=SYSTEM_PROMPT.format(name=name),
        max_tokens=max(1024, estimate_tokens(old) + 2048),
    )
    if _silent(answer.text):
        return "", "", warnings
    if answer.truncated:
        return (
            "",
            (
                f"the {model.provider} model {model.model} was cut short at its token limit, so its "
                f"{name} would lose the end of the file; nothing was changed"
            ),
            warnings,
        )
    new = clean_reply(answer.text) + "\n"
    missing, _, _ = check_update(old, new)
    if missing:
        shown = "; ".join(repr(line.strip()) for line in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return (
            "",
            (
                f"the {model.provider} model {model.model} dropped or reworded {len(missing)} "
                f"line(s) of {name} without marking them superseded ({shown}{more}); "
                "nothing was changed"
            ),
            warnings,
        )
    return new, "", warnings


# -- the proposal -------------------------------------------------------------------------------
def _diff(name: str, old: str, new: str, existed: bool) -> str:
    if old == new:
        return ""
    before = old.splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    for lines in (before, after):
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
    source = f"a/{name}" if existed else "/dev/null"
    return "".join(difflib.unified_diff(before, after, fromfile=source, tofile=f"b/{name}"))


def _config_of(memory: object) -> Config:
    inner = getattr(memory, "memory", memory)  # an AsyncMemory holds its Memory
    config = getattr(inner, "config", None)
    if not isinstance(config, Config):
        raise UsageError(
            f"consolidate needs a memdir.Memory (or an object with its config), got {type(memory).__name__}"
        )
    return config


def consolidate(
    memory: object,
    days: int = 7,
    llm: ChatModel | None = None,
    *,
    now: datetime | None = None,
    max_facts: int = MAX_FACTS,
    input_tokens: int = INPUT_TOKENS,
) -> Proposal:
    """Propose an updated ``MEMORY.md`` from the daily files of the last ``days`` days (see
    the module docstring). Writes nothing: pass the result to :func:`apply_proposal`.

    ``memory`` is a :class:`~memdir.Memory` (or an :class:`~memdir.AsyncMemory`); ``llm`` the
    chat model, by default the one the ``llm.*`` settings name, else the extractive fallback;
    ``now`` the current time (an aware datetime; by default the clock's).
    """
    for label, value, low in (
        ("days", days, 1),
        ("max_facts", max_facts, 1),
        ("input_tokens", input_tokens, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise UsageError(f"{label} must be a whole number >= {low}, got {value!r}")
    config = _config_of(memory)
    root = config.workspace
    zone, _ = user_zone(config)
    today = (now or datetime.now(UTC)).astimezone(zone).date()
    warnings: list[str] = []
    files = daily_files(config, days=days, today=today, warnings=warnings)
    name = memory_file(root)
    path = target(root, name)
    existed = path.exists()
    old = read_text(path)
    owned = llm is None
    if llm is None:
        from memdir.llm.providers import create_chat_model

        llm = create_chat_model(config)
    try:
        provider, model_name = llm.provider, llm.model
        fallback_reason = llm.reason if isinstance(llm, ExtractiveSummarizer) else ""
        new, refused, added = old, "", []
        if files and not isinstance(llm, ExtractiveSummarizer):
            try:
                answer, refused, notes = _model_update(
                    llm,
                    name,
                    old,
                    files,
                    days=days,
                    today=today.isoformat(),
                    input_tokens=input_tokens,
                )
                warnings.extend(notes)
                new = answer or old
            except LLMError as exc:
                fallback_reason = (
                    f"{llm.provider} model {llm.model} failed ({exc.message}); "
                    "used the extractive fallback"
                )
                warnings.append(fallback_reason)
                provider = model_name = ExtractiveSummarizer.provider
        if files and fallback_reason:
            new, added, notes = _extractive_update(old, files, max_facts)
            warnings.extend(notes)
    finally:
        if owned:
            llm.close()
    superseded: list[Superseded] = []
    if new != old and not fallback_reason:
        _, superseded, added = check_update(old, new)
    return Proposal(
        path=name,
        old_text=old,
        new_text=new,
        diff=_diff(name, old, new, existed),
        added=tuple(added),
        superseded=tuple(superseded),
        files=tuple(f.path for f in files),
        days=days,
        since=(today - timedelta(days=days - 1)).isoformat(),
        until=today.isoformat(),
        provider=provider,
        model=model_name,
        fallback=bool(fallback_reason),
        fallback_reason=fallback_reason,
        refused=refused,
        existed=existed,
        warnings=tuple(warnings),
    )


def apply_proposal(memory: object, proposal: Proposal, *, now: datetime | None = None) -> Applied:
    """Write ``proposal``: the current file is kept as ``.memdir/backups/<name>.<UTC time>``
    (``-2``, … when that name is taken), then replaced atomically and re-indexed. Nothing is
    written for a proposal that changes nothing; a refused one raises
    :class:`~memdir.errors.UsageError`, and a file changed since the proposal was made
    :class:`~memdir.errors.StorageError`."""
    from memdir.writer import replace_text

    if proposal.refused:
        raise UsageError(f"this proposal was refused and cannot be written: {proposal.refused}")
    if not proposal.changed:
        return Applied(False, proposal.path)
    config = _config_of(memory)
    root = config.workspace
    path = target(root, proposal.path)
    current = read_text(path) if path.exists() else None
    expected = proposal.old_text if proposal.existed else None
    if current != expected:
        raise StorageError(
            f"{proposal.path} changed since the proposal was made; nothing was written",
            hint="run consolidate again to work from the current file",
        )
    backup = ""
    if proposal.existed:
        stamp = f"{(now or datetime.now(UTC)).astimezone(UTC):%Y%m%dT%H%M%SZ}"
        backup = _write_backup(root, proposal.path, stamp, proposal.old_text)
    replace_text(
        path,
        proposal.new_text,
        expected=expected,
        allow_hardlinks=config["limits.allow_hardlinks"],
    )
    inner = getattr(memory, "memory", memory)
    refresh = getattr(inner, "refresh", None)
    warnings = list(refresh(paths=[path])) if callable(refresh) else []
    return Applied(True, proposal.path, backup, tuple(warnings))


def _write_backup(root: Path, name: str, stamp: str, text: str) -> str:
    """Keep ``text`` as ``.memdir/backups/<name>.<stamp>`` (``-2``, … if taken), synced;
    return its workspace-relative path. Created exclusively: a backup is never overwritten."""
    folder = target(root, BACKUP_DIR)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create folder {folder}: {exc.strerror}") from exc
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    data = text.encode("utf-8")
    for n in range(1, 1000):
        backup = f"{name}.{stamp}" if n == 1 else f"{name}.{stamp}-{n}"
        path = folder / backup
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot create backup {path}: {exc.strerror}") from exc
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            raise StorageError(f"writing backup {path} failed: {exc.strerror}") from exc
        finally:
            os.close(fd)
        return f"{BACKUP_DIR}/{backup}"
    raise StorageError(f"{folder} already has 999 backups of {name} from {stamp}")


async def aconsolidate(
    memory: object, days: int = 7, llm: ChatModel | None = None, **kwargs: Any
) -> Proposal:
    """:func:`consolidate`, awaited (run in a worker thread)."""
    import asyncio

    return await asyncio.to_thread(consolidate, memory, days, llm, **kwargs)


async def aapply_proposal(memory: object, proposal: Proposal, **kwargs: Any) -> Applied:
    """:func:`apply_proposal`, awaited (run in a worker thread)."""
    import asyncio

    return await asyncio.to_thread(apply_proposal, memory, proposal, **kwargs)
