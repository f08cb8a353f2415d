"""The package's layout: data flows one way, files → workspace → chunking → index → embed →
search → tools → api / mcp / cli, and a module reaches down that flow, never up.

Each top-level module of ``memdir`` (a package counts as one) has a place in :data:`FLOW`,
lowest first; an import of a module placed higher is an error, except the few listed in
:data:`ALLOWED` with their reason. A new module must be given a place.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "memdir"

FLOW = (
    # shared foundations
    "errors",
    "cachedir",
    "httpwait",
    "redact",
    "text",
    "dates",
    "markdown",
    # files → chunks → index
    "chunking",
    "config",
    "workspace",
    "index",
    "writer",
    "embed",
    # the layers on top of the index
    "llm",
    "sessions",
    "search",
    "prompt",
    "context",
    "api",
    "tools",
    "__init__",
    # the ways in
    "chat",
    "mcp",
    "install",
    "cli",
    "cli_agent",
    "cli_capture",
    "cli_consolidate",
    "cli_lcm",
    "cli_pg",
    "cli_replay",
    "__main__",
)

ALLOWED = {
    # Claude Code transcripts are flattened by the sessions layer's parser, imported lazily
    # and only for them
    ("chunking", "sessions"),
    # the HTTP clients name memdir's version in their User-Agent
    ("llm", "__init__"),
    # the LCM tools are defined with the tools layer's spec and argument checks, which the
    # tools layer serves
    ("context", "tools"),
}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports() -> set[tuple[str, str, str]]:
    """``(importer, imported, file)`` for every import between two top-level modules."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        me = _top(".".join(p for p in rel.parts if p != "__init__") or "memdir")
        if rel.parts[-1] == "__init__" and len(rel.parts) == 2:
            me = "__init__"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.ImportFrom) and node.level:
                names = []  # the package uses absolute imports only (checked below)
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name == "memdir" or name.startswith("memdir."):
                    other = _top(name)
                    if other != me:
                        found.add((me, other, str(path.relative_to(PACKAGE))))
    return found


def test_every_module_has_a_place_in_the_flow() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }
    assert modules <= set(FLOW), f"give these a place in FLOW: {sorted(modules - set(FLOW))}"


def test_a_module_reaches_down_the_flow_never_up() -> None:
    rank = {m: i for i, m in enumerate(FLOW)}
    upward = sorted(
        f"{file}: {me} imports {other}"
        for me, other, file in _imports()
        if rank[other] > rank[me] and (me, other) not in ALLOWED
    )
    assert not upward, "\n".join(upward)


def test_the_allowed_exceptions_are_still_needed() -> None:
    pairs = {(me, other) for me, other, _ in _imports()}
    assert pairs >= ALLOWED, f"no longer imported, drop from ALLOWED: {ALLOWED - pairs}"


def test_imports_are_absolute() -> None:
    relative = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level
    ]
    assert not relative, relative
