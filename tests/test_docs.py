"""The README stays true to the code: every setting and every command is documented."""

from __future__ import annotations

from pathlib import Path

from memdir.cli import cli
from memdir.config import SETTINGS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_readme_with_its_default() -> None:
    import json

    for setting in SETTINGS:
        row = f"| `{setting.key}` | `{json.dumps(setting.default, ensure_ascii=False)}` |"
        assert row in README, f"README's configuration table lacks or misstates {setting.key}"


def test_every_command_is_in_the_readme_and_has_help() -> None:
    for name, command in cli.commands.items():
        assert f"memdir {name}" in README, f"README does not mention `memdir {name}`"
        assert command.help, f"`memdir {name}` has no help text"


def test_readme_has_exactly_two_setup_commands() -> None:
    setup = README.split("## Set up", 1)[1].split("##", 1)[0]
    commands = [
        line for line in setup.splitlines() if line and not line.startswith(("#", "`", "On "))
    ]
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && memdir demo",
        "bash .ci/run",
    ]
