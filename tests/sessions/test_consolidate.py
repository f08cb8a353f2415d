"""Consolidation: recent daily files proposed into MEMORY.md, with the extractive fallback and
with a real chat model on a loopback server (a model that drops a line is refused), written
only when asked, atomically, with the previous version kept."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from embed.fakes import FakeServer, Reply
from llm.conftest import openai_answer
from memdir import AsyncMemory, Memory
from memdir.cli import cli
from memdir.errors import StorageError, UsageError
from memdir.llm import OpenAIChat
from memdir.sessions import Proposal, aconsolidate, apply_proposal, consolidate

from .conftest import NOW, prompt_of

MEMORY = """# Memory

## Project
- Database: MySQL
- Alice prefers e-mail for anything with a price in it
"""
DAILY = {
    "memory/2026-02-16.md": (
        "# 2026-02-16\n\n"
        "- user: We decided to use PostgreSQL for billing on 2026-03-02.\n"
        "- assistant: I'll remember that Anna wants email invoices.\n"
        "- user: My colleague Anna prefers email invoices.\n"
        "- user: what's the weather like in Boston today?\n"
        "- user: Set gpu_memory_utilization to 0.92 on the A100 nodes.\n"
    ),
    "memory/2026-02-14-billing.md": (
        "# Session: 2026-02-14 10:00:00 America/New_York\n\n"
        "- **Session ID**: 2f3a9c1e-77aa-4c1b-9d0e-5b6f7a8b9c0d\n"
        "- **Source**: api\n"
        "- **Ended by**: new\n\n"
        "## Conversation Summary\n\n"
        "user: ALICE prefers e-mail, for anything with a price in it!\n"
        "assistant: Sure, noted.\n"
        "user: The deadline for the invoice migration is Friday 2026-02-20.\n"
    ),
    # A week and a day before NOW: outside --days 7.
    "memory/2026-02-09.md": "- We decided to move the cache to Redis on 2026-02-09.\n",
    "memory/notes.md": "- We decided to ship the Android app on 2026-04-01.\n",
}
ADDED = [
    "- 2026-02-14: The deadline for the invoice migration is Friday 2026-02-20.",
    "- 2026-02-16: We decided to use PostgreSQL for billing on 2026-03-02.",
    "- 2026-02-16: My colleague Anna prefers email invoices.",
    "- 2026-02-16: Set gpu_memory_utilization to 0.92 on the A100 nodes.",
]


def _fill(ws: Path, memory: str | None = MEMORY, daily: dict[str, str] = DAILY) -> None:
    if memory is not None:
        (ws / "MEMORY.md").write_text(memory, encoding="utf-8")
    for rel, text in daily.items():
        (ws / rel).write_text(text, encoding="utf-8")


def _backups(ws: Path) -> list[Path]:
    folder = ws / ".memdir" / "backups"
    return sorted(p for p in folder.glob("MEMORY.md.*")) if folder.is_dir() else []


# -- the extractive fallback --------------------------------------------------------------------
def test_the_fallback_appends_dated_durable_facts_and_removes_nothing(
    ws: Path, mem: Memory
) -> None:
    _fill(ws)
    proposal = consolidate(mem, days=7, now=NOW)

    assert proposal.fallback and proposal.provider == "extractive"
    assert proposal.fallback_reason == "no model configured (llm.provider = none)"
    assert proposal.files == ("memory/2026-02-14-billing.md", "memory/2026-02-16.md")
    assert (proposal.since, proposal.until) == ("2026-02-10", "2026-02-16")
    assert list(proposal.added) == ADDED  # no question, no assistant echo, no session metadata
    assert proposal.superseded == ()
    assert proposal.new_text == MEMORY + "\n## Appended\n\n" + "\n".join(ADDED) + "\n"
    assert proposal.diff.startswith("--- a/MEMORY.md\n+++ b/MEMORY.md\n")
    assert all(f"+{line}\n" in proposal.diff for line in ADDED)
    assert "\n-" not in proposal.diff  # not one line removed
    assert "Redis" not in proposal.new_text and "Android" not in proposal.new_text
    # Proposing writes nothing.
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == MEMORY and not _backups(ws)


def test_applying_keeps_a_backup_and_a_second_run_proposes_nothing(ws: Path, mem: Memory) -> None:
    _fill(ws)
    applied = apply_proposal(mem, consolidate(mem, now=NOW), now=NOW)

    assert applied.written and applied.path == "MEMORY.md"
    assert applied.backup == ".memdir/backups/MEMORY.md.20260216T150000Z"
    assert (ws / applied.backup).read_text(encoding="utf-8") == MEMORY
    text = (ws / "MEMORY.md").read_text(encoding="utf-8")
    assert text.startswith(MEMORY) and text.endswith(ADDED[-1] + "\n")
    assert mem.search("gpu_memory_utilization").results[0].path == "MEMORY.md"  # re-indexed

    again = consolidate(mem, now=NOW)
    assert not again.changed and again.diff == "" and again.added == ()
    assert apply_proposal(mem, again, now=NOW).written is False
    assert len(_backups(ws)) == 1


def test_a_later_run_adds_to_the_same_appended_section(ws: Path, mem: Memory) -> None:
    _fill(ws)
    first = apply_proposal(mem, consolidate(mem, now=NOW), now=NOW)
    (ws / "memory/2026-02-16.md").write_text(
        DAILY["memory/2026-02-16.md"] + "- user: We agreed to release v2.4.0 on 2026-03-09.\n",
        encoding="utf-8",
    )
    later = consolidate(mem, now=NOW)
    assert later.added == ("- 2026-02-16: We agreed to release v2.4.0 on 2026-03-09.",)
    second = apply_proposal(mem, later, now=NOW)
    text = (ws / "MEMORY.md").read_text(encoding="utf-8")
    assert text.count("## Appended") == 1
    assert text.endswith(ADDED[-1] + "\n" + later.added[0] + "\n")
    assert second.backup == first.backup + "-2"  # same second: a new name, never overwritten


def test_without_a_memory_file_one_is_proposed_and_written_without_a_backup(
    ws: Path, mem: Memory
) -> None:
    _fill(ws, memory=None)
    proposal = consolidate(mem, now=NOW)
    assert not proposal.existed and proposal.old_text == ""
    assert proposal.new_text.startswith("# Memory\n\n## Appended\n\n- 2026-02-14: ")
    assert proposal.diff.startswith("--- /dev/null\n+++ b/MEMORY.md\n")
    applied = apply_proposal(mem, proposal, now=NOW)
    assert applied.written and applied.backup == ""
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == proposal.new_text


def test_a_file_changed_after_the_proposal_is_not_overwritten(ws: Path, mem: Memory) -> None:
    _fill(ws)
    proposal = consolidate(mem, now=NOW)
    edited = MEMORY + "- Bob owns the deploy scripts\n"
    (ws / "MEMORY.md").write_text(edited, encoding="utf-8")
    with pytest.raises(StorageError, match="changed since the proposal"):
        apply_proposal(mem, proposal, now=NOW)
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == edited and not _backups(ws)


def test_bad_arguments_are_usage_errors(ws: Path, mem: Memory) -> None:
    with pytest.raises(UsageError, match="days"):
        consolidate(mem, days=0)
    with pytest.raises(UsageError, match=r"memdir\.Memory"):
        consolidate(object())


def test_the_async_twin_gives_the_same_proposal(ws: Path, mem: Memory) -> None:
    _fill(ws)

    async def run() -> Proposal:
        amem = AsyncMemory(ws, overrides={"embedding.provider": "none", "timezone": "UTC"})
        try:
            return await aconsolidate(amem, 7, now=NOW)
        finally:
            await amem.aclose()

    assert asyncio.run(run()).new_text == consolidate(mem, now=NOW).new_text


# -- with a model -------------------------------------------------------------------------------
UPDATED = """# Memory

## Project
- ~~Database: MySQL~~ (superseded 2026-02-16: PostgreSQL for billing, from 2026-03-02)
- Alice prefers e-mail for anything with a price in it
- 2026-02-16: Anna prefers email invoices.

## Appended

- 2026-02-14: Invoice migration deadline: Friday 2026-02-20.
"""


def test_a_model_answer_keeping_every_line_is_proposed_with_its_supersessions(
    ws: Path, mem: Memory, chat: OpenAIChat, server: FakeServer
) -> None:
    _fill(ws)
    server.script(openai_answer("```markdown\n" + UPDATED + "```"))
    proposal = consolidate(mem, llm=chat, now=NOW)

    [seen] = server.requests
    system, user = prompt_of(seen)
    assert "MEMORY.md" in system and "NO_REPLY" in system
    assert "### memory/2026-02-14-billing.md" in user and "### memory/2026-02-16.md" in user
    assert user.index("2026-02-14-billing") < user.index("### memory/2026-02-16.md")
    assert "Redis" not in user and "- Database: MySQL" in user and "Today is 2026-02-16." in user

    assert not proposal.fallback and not proposal.refused and proposal.provider == "openai"
    assert proposal.new_text == UPDATED  # the code fence is dropped
    [marked] = proposal.superseded
    assert (marked.old, marked.date) == ("- Database: MySQL", "2026-02-16")
    assert marked.line.startswith("- ~~Database: MySQL~~ (superseded 2026-02-16")
    assert proposal.added == (
        "- 2026-02-16: Anna prefers email invoices.",
        "- 2026-02-14: Invoice migration deadline: Friday 2026-02-20.",
    )
    assert "-- Database: MySQL\n" in proposal.diff
    applied = apply_proposal(mem, proposal, now=NOW)
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == UPDATED
    assert (ws / applied.backup).read_text(encoding="utf-8") == MEMORY


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (
            UPDATED.replace("- Alice prefers e-mail for anything with a price in it\n", ""),
            "dropped",
        ),
        (UPDATED.replace("price in it", "price"), "dropped"),
        (UPDATED.replace("~~Database: MySQL~~", "Database: PostgreSQL"), "dropped"),
    ],
    ids=["line-dropped", "line-reworded", "superseded-without-mark"],
)
def test_a_model_answer_that_loses_a_line_is_refused(
    ws: Path, mem: Memory, chat: OpenAIChat, server: FakeServer, answer: str, why: str
) -> None:
    _fill(ws)
    server.script(openai_answer(answer))
    proposal = consolidate(mem, llm=chat, now=NOW)
    assert proposal.refused and why in proposal.refused
    assert "without marking them superseded" in proposal.refused
    assert not proposal.changed and proposal.new_text == MEMORY and proposal.diff == ""
    with pytest.raises(UsageError, match="refused"):
        apply_proposal(mem, proposal)
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == MEMORY


def test_a_truncated_answer_is_refused_and_no_reply_changes_nothing(
    ws: Path, mem: Memory, chat: OpenAIChat, server: FakeServer
) -> None:
    _fill(ws)
    server.script(openai_answer(UPDATED, finish="length"), openai_answer("NO_REPLY"))
    cut = consolidate(mem, llm=chat, now=NOW)
    assert "cut short" in cut.refused and not cut.changed
    silent = consolidate(mem, llm=chat, now=NOW)
    assert not silent.refused and not silent.changed and not silent.fallback


def test_a_failing_model_falls_back_to_the_extractive_proposal(
    ws: Path, mem: Memory, chat: OpenAIChat, server: FakeServer
) -> None:
    _fill(ws)
    server.handler = lambda seen: Reply({"error": {"message": "overloaded"}}, status=500)
    proposal = consolidate(mem, llm=chat, now=NOW)
    assert proposal.fallback and proposal.provider == "extractive"
    assert "openai model gpt-test failed" in proposal.fallback_reason
    assert proposal.fallback_reason in proposal.warnings
    assert list(proposal.added) == ADDED


# -- the command --------------------------------------------------------------------------------
def _run(ws: Path, *args: str, input: str | None = None, extra: tuple[str, ...] = ()) -> Result:
    sets = ["--set", "embedding.provider=none", "--set", "timezone=UTC", *extra]
    return CliRunner().invoke(cli, ["consolidate", "-w", str(ws), *sets, *args], input=input)


@pytest.fixture
def today_ws(ws: Path) -> Path:
    """``ws`` with the daily files dated today (the command reads the real clock)."""
    today = datetime.now(UTC).date().isoformat()
    _fill(ws, daily={f"memory/{today}.md": DAILY["memory/2026-02-16.md"]})
    return ws


def test_the_command_prints_the_diff_and_writes_nothing_unless_confirmed(today_ws: Path) -> None:
    ws = today_ws
    for args, input in (((), None), ((), "n\n"), (("--dry-run",), None)):
        result = _run(ws, *args, input=input)
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith("--- a/MEMORY.md\n")
        assert "+- " in result.stdout and "extractive fallback" in result.stderr
        assert (ws / "MEMORY.md").read_text(encoding="utf-8") == MEMORY and not _backups(ws)
    assert "not written" in result.stderr

    confirmed = _run(ws, input="y\n")
    assert confirmed.exit_code == 0
    assert "wrote MEMORY.md; previous version kept as .memdir/backups/MEMORY.md." in (
        confirmed.stderr
    )
    [backup] = _backups(ws)
    assert backup.read_text(encoding="utf-8") == MEMORY
    assert "gpu_memory_utilization" in (ws / "MEMORY.md").read_text(encoding="utf-8")

    again = _run(ws, "--yes")
    assert again.exit_code == 0 and again.stdout == ""
    assert "MEMORY.md is up to date" in again.stderr


def test_the_command_writes_with_yes_and_reports_json(today_ws: Path) -> None:
    ws = today_ws
    dry = _run(ws, "--json")
    data = json.loads(dry.stdout)
    assert data["changed"] and not data["written"] and data["fallback"]
    assert data["diff"].startswith("--- a/MEMORY.md") and len(data["added"]) == 3
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == MEMORY

    wrote = json.loads(_run(ws, "--json", "--yes").stdout)
    assert wrote["written"] and wrote["backup"].startswith(".memdir/backups/MEMORY.md.")
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == wrote["new_text"]
    assert (ws / wrote["backup"]).read_text(encoding="utf-8") == MEMORY


def test_the_command_refuses_a_model_answer_that_drops_a_line(
    today_ws: Path, server: FakeServer
) -> None:
    ws = today_ws
    server.script(openai_answer("# Memory\n\n## Project\n- Database: PostgreSQL\n"))
    model = (
        "--set",
        "llm.provider=openai",
        "--set",
        f"llm.base_url={server.url}/v1",
        "--set",
        "llm.model=llama3.2",
    )
    result = _run(ws, "--yes", extra=(*model, "--set", "llm.max_retries=0"))
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("Error: the openai model")
    assert "'- Database: MySQL'" in result.stderr
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == MEMORY and not _backups(ws)
