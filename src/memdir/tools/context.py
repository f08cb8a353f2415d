"""What a tool handler gets besides its arguments: the memory, the caller's rules, redaction."""

from __future__ import annotations

from dataclasses import dataclass

from memdir.api import Memory
from memdir.config import Config
from memdir.redact import Redactor
from memdir.tools.access import AccessPolicy

__all__ = ["ToolContext"]


@dataclass(frozen=True, slots=True)
class ToolContext:
    """One call's environment. ``redactor`` is set when ``redact.tool_results`` is on;
    ``session`` is the conversation the host bound the lcm tools to, if any."""

    memory: Memory
    access: AccessPolicy
    redactor: Redactor | None
    session: str | None = None

    @property
    def config(self) -> Config:
        return self.memory.config

    def redact(self, text: str) -> str:
        """``text`` with secrets masked when tool-result redaction is on, else unchanged."""
        return self.redactor.redact(text) if self.redactor is not None else text
