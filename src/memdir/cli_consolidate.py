"""``memdir consolidate``: recent daily files into ``MEMORY.md``, shown as a diff first.

It registers on :data:`memdir.cli.cli`, which imports this module at its end, and wraps
:func:`memdir.sessions.consolidate` and :func:`memdir.sessions.apply_proposal`.
"""

from __future__ import annotations

import click

from memdir.cli import _emit_json, _shown, _warn, cli, common_options, json_option
from memdir.errors import MemdirError

__all__: list[str] = []


class ConsolidationRefused(MemdirError):
    """The model's proposal would have lost lines of MEMORY.md."""


def _print_diff(diff: str) -> None:
    for line in diff.splitlines():
        shown = _shown(line)
        if line.startswith(("+++", "---")):
            click.echo(click.style(shown, bold=True))
        elif line.startswith("+"):
            click.echo(click.style(shown, fg="green"))
        elif line.startswith("-"):
            click.echo(click.style(shown, fg="red"))
        elif line.startswith("@@"):
            click.echo(click.style(shown, fg="cyan"))
        else:
            click.echo(shown)


@cli.command("consolidate")
@click.option(
    "--days",
    type=click.IntRange(1, 3650),
    default=7,
    show_default=True,
    help="Read the daily files of the last DAYS days, today included.",
)
@click.option("--yes", "-y", is_flag=True, help="Write without asking.")
@click.option("--dry-run", is_flag=True, help="Show the proposal only; never write.")
@json_option
@common_options
def consolidate_cmd(days: int, yes: bool, dry_run: bool, as_json: bool) -> None:
    """Propose an updated MEMORY.md from the recent daily files, and write it if confirmed.

    Reads memory/YYYY-MM-DD.md and memory/YYYY-MM-DD-<slug>.md of the last DAYS days. With a
    model (llm.* settings), new durable facts are added and superseded lines struck through
    with their date; an answer that drops a line is refused. Without one, the dated facts not
    yet in MEMORY.md are appended under '## Appended'. Nothing is deleted.

    Prints a unified diff, then asks before writing (--yes writes at once; --dry-run and
    --json without --yes never write). The previous file is kept in .memdir/backups/.

    \b
    Examples:
      memdir consolidate --days 7
      memdir consolidate --dry-run --json
      memdir consolidate --days 14 --yes
    """
    from memdir.sessions.consolidation import apply_proposal, consolidate

    memory = click.get_current_context().meta["memdir.open"](need_memory=True)
    try:
        proposal = consolidate(memory, days=days)
        if as_json:
            payload = proposal.to_dict()
            payload["written"] = False
            payload["backup"] = ""
            if proposal.changed and yes and not dry_run:
                applied = apply_proposal(memory, proposal)
                payload.update(written=applied.written, backup=applied.backup)
                payload["warnings"] = [*proposal.warnings, *applied.warnings]
            _emit_json(payload)
            if proposal.refused:
                click.get_current_context().exit(ConsolidationRefused.exit_code)
            return
        if proposal.fallback:
            _warn([f"{proposal.fallback_reason}: the extractive fallback only appends facts"])
        _warn(proposal.warnings)
        if proposal.refused:
            raise ConsolidationRefused(
                proposal.refused,
                hint="run it again, use a stronger model, or edit MEMORY.md by hand",
            )
        read = f"{len(proposal.files)} daily file(s), {proposal.since} to {proposal.until}"
        if not proposal.changed:
            click.echo(f"{proposal.path} is up to date: nothing new ({read})", err=True)
            return
        _print_diff(proposal.diff)
        summary = f"{len(proposal.added)} line(s) added, {len(proposal.superseded)} superseded"
        click.echo(f"{summary} ({read})", err=True)
        if dry_run:
            click.echo(f"dry run: {proposal.path} not written", err=True)
            return
        if not yes:
            try:
                confirmed = click.confirm(f"Write {proposal.path}?", default=False, err=True)
            except click.Abort:  # no answer (end of input)
                confirmed = False
                click.echo("", err=True)
            if not confirmed:
                click.echo(f"{proposal.path} not written (--yes writes without asking)", err=True)
                return
        applied = apply_proposal(memory, proposal)
        _warn(applied.warnings)
        kept = f"; previous version kept as {_shown(applied.backup)}" if applied.backup else ""
        click.echo(f"wrote {_shown(applied.path)}{kept}", err=True)
    finally:
        memory.close()
