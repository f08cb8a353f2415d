"""The agent CLI commands: ``memdir tools``, ``prompt``, ``call`` and ``write``.

``memdir serve`` is exercised end to end by tests/test_mcp.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdir.cli import cli
from memdir.config import load_config
from memdir.prompt import memory_prompt
from memdir.tools import FORMATS, tool_schemas
from memdir.tools.write import today


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_prints_the_same_schemas(fmt: str) -> None:
    result = CliRunner().invoke(cli, ["tools", "--format", fmt])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == tool_schemas(fmt)
    read_only = CliRunner().invoke(cli, ["tools", "--format", fmt, "--read-only"])
    assert len(json.loads(read_only.stdout)) == 2


def test_cli_call_prints_the_result_and_fails_on_errors(ws: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        cli, ["call", "-w", str(ws), "memory_get", '{"path": "MEMORY.md", "lines": 1}']
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["text"] == "# Memory"
    bad = runner.invoke(cli, ["call", "-w", str(ws), "memory_get", '{"path": "../x.md"}'])
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["code"] == "traversal"
    piped = runner.invoke(
        cli, ["call", "-w", str(ws), "memory_search", "-"], input='{"query": "quokka"}'
    )
    assert piped.exit_code == 0 and json.loads(piped.stdout)["results"]


def test_cli_prints_the_section() -> None:
    result = CliRunner().invoke(cli, ["prompt", "--read-only", "--citations", "off"])
    assert result.exit_code == 0
    assert (
        result.stdout
        == memory_prompt(tools=["memory_search", "memory_get"], citations="off") + "\n"
    )
    assert result.stdout.endswith(".\n\n")  # the section ends with a blank line


def test_cli_write(ws: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli, ["write", "-w", str(ws), "--", "- from the command line"])
    assert ok.exit_code == 0, ok.output
    assert ok.stdout == f"wrote memory/{today(load_config(ws)).isoformat()}.md#L3\n"
    piped = runner.invoke(cli, ["write", "-w", str(ws), "--json"], input="- piped\n")
    assert json.loads(piped.stdout)["start_line"] == 5
    bad = runner.invoke(
        cli, ["write", "-w", str(ws), "--scope", "group", "--target", "long_term", "x"]
    )
    assert bad.exit_code == 1
    assert "Error: long-term memory can be written only in the main" in bad.stderr
