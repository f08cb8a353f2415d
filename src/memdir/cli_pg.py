"""``memdir migrate``: copy the index to another backend (SQLite → PostgreSQL), embeddings kept.

It registers on :data:`memdir.cli.cli`, which imports this module at its end, and wraps
:func:`memdir.index.migrate.copy_index`. ``memdir index --backend postgres`` (the first load)
and ``memdir status`` (server, version, extensions, rows) are the other PostgreSQL operations.
"""

from __future__ import annotations

import sys
import time

import click

from memdir.cli import _emit_json, cli, common_options, json_option
from memdir.config import INDEX_BACKENDS
from memdir.errors import IndexBusyError, UsageError

__all__: list[str] = []


@cli.command("migrate")
@click.option(
    "--to",
    "to",
    type=click.Choice(INDEX_BACKENDS),
    default="postgres",
    show_default=True,
    help="The backend to copy the index into.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress lines.")
@json_option
@common_options
def migrate_cmd(to: str, quiet: bool, as_json: bool) -> None:
    """Copy this workspace's SQLite index (index.path) into PostgreSQL (index.url).

    Files, chunks, vectors, the embedding cache and the recorded shape are copied as they
    are: nothing is chunked or embedded again, and the target answers searches at once. Set
    index.backend = "postgres" afterwards to use it. Readers of the target keep its previous
    rows until the copy commits.

    \b
    Example:
      memdir migrate --to postgres --set index.url=postgresql://memdir@db:5432/memdir
    """
    from memdir.index.backend import open_index
    from memdir.index.migrate import copy_index
    from memdir.index.store import Index

    if to != "postgres":
        raise UsageError("only `memdir migrate --to postgres` (from the SQLite index) is supported")
    load = click.get_current_context().meta["memdir.config"]
    config = load(**{"index.backend": "postgres"})
    if not config.index_path.exists():
        raise UsageError(
            f"no SQLite index at {config.index_path} to copy", hint="run `memdir index` first"
        )
    started = time.perf_counter()
    source = Index.open(config.index_path)
    try:
        target = open_index(config)
        try:
            for lock in (source.lock, target.lock):
                if not lock.acquire(timeout=30):
                    raise IndexBusyError(f"another process holds {lock.path}; try again later")

            def progress(phase: str, done: int, total: int) -> None:
                if not quiet and not as_json:
                    print(f"{phase}: {done:,}/{total:,}", file=sys.stderr, flush=True)

            report = copy_index(source, target, progress=progress)
            where = target.location
        finally:
            target.close()
    finally:
        source.close()
    seconds = time.perf_counter() - started
    if as_json:
        _emit_json({**report.to_dict(), "target": where, "seconds": round(seconds, 3)})
    else:
        click.echo(
            f"Copied {report.files:,} files, {report.chunks:,} chunks, {report.vectors:,} vectors"
            f" and {report.cache_entries:,} cached embeddings to {where} in {seconds:.2f}s"
        )
