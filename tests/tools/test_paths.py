"""memory_get refuses every path trick with its own error code, and leaks nothing.

Each case goes through the dispatcher exactly as a model's tool call would. The outside
folder holds a file with a canary word; no answer may ever contain it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memdir.tools import MemoryTools

from .helpers import FILES

CANARY = "canary-7f3a outside the workspace"


@pytest.fixture(scope="module")
def tricky(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryTools]:
    """Tools on a workspace with symlinks that leave it, a folder and a FIFO named like notes,
    and a .txt file. Shared by the module: every call here only reads."""
    base = tmp_path_factory.mktemp("tricky")
    ws = base / "ws"
    for rel, text in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    outside = base / "outside"
    (outside / "sub" / "deep").mkdir(parents=True)
    (outside / "secret.md").write_text(f"{CANARY}\n")
    (outside / "sub" / "deep" / "x.md").write_text(f"{CANARY}\n")
    memory = ws / "memory"
    (memory / "out").symlink_to(outside, target_is_directory=True)
    (memory / "leak.md").symlink_to(outside / "secret.md")
    (memory / "mid").symlink_to(outside / "sub", target_is_directory=True)
    (memory / "inside.md").symlink_to(memory / "projects" / "billing.md")
    (memory / "dir.md").mkdir()
    os.mkfifo(memory / "pipe.md")
    (memory / "notes.txt").write_text("plain text\n")
    (ws / ".env").write_text(f"KEY={CANARY}\n")
    (memory / "env.md").symlink_to("../.env")
    os.link(outside / "secret.md", memory / "hard.md")
    (memory / "node_modules").mkdir()
    (memory / "node_modules" / "x.md").write_text(f"{CANARY}\n")
    (memory / "blob.md").write_bytes(f"{CANARY}\x00\x01".encode())
    (memory / "loop.md").symlink_to("loop2.md")
    (memory / "loop2.md").symlink_to("loop.md")
    with MemoryTools.open(ws, overrides={"embedding.provider": "none"}) as tools:
        yield tools


TRICKS: list[tuple[str, str, str]] = [
    ("dotdot", "..", "traversal"),
    ("dotdot-out", "../outside/secret.md", "traversal"),
    ("etc-passwd", "memory/../../etc/passwd", "traversal"),
    ("back-to-root", "memory/../MEMORY.md", "traversal"),
    ("dot-dotdot", "./../MEMORY.md", "traversal"),
    ("double-slash-dotdot", "memory//../MEMORY.md", "traversal"),
    ("padded-dotdot", "  ../MEMORY.md  ", "traversal"),
    ("encoded-dots-slash", "%2e%2e%2fMEMORY.md", "encoded"),
    ("encoded-slash", "memory%2Fprojects%2Fbilling.md", "encoded"),
    ("encoded-upper", "memory/%2E%2E/MEMORY.md", "encoded"),
    ("encoded-backslash", "memory%5c..%5cMEMORY.md", "encoded"),
    ("absolute", "/etc/passwd", "absolute"),
    ("home", "~/MEMORY.md", "absolute"),
    ("other-home", "~root/notes.md", "absolute"),
    ("unc-slashes", "//server/share/notes.md", "absolute"),
    ("drive", "C:/Windows/notes.md", "absolute"),
    ("drive-relative", "c:notes.md", "absolute"),
    ("windows-backslash", "C:\\Windows\\notes.md", "backslash"),
    ("backslash", "memory\\projects\\billing.md", "backslash"),
    ("unc-backslash", "\\\\server\\share\\notes.md", "backslash"),
    ("symlinked-folder", "memory/out/secret.md", "symlink-escape"),
    ("symlinked-file", "memory/leak.md", "symlink-escape"),
    ("symlink-intermediate", "memory/mid/deep/x.md", "symlink-escape"),
    ("case-upper", "MEMORY.MD", "not-memory"),
    ("case-folder", "Memory/2026-01-12.md", "not-memory"),
    ("nul-byte", "memory/2026-01-12.md\x00.txt", "nul-byte"),
    ("very-long", "memory/" + "a/" * 600 + "x.md", "too-long"),
    ("trailing-slash", "memory/2026-01-12.md/", "not-file"),
    ("folder-slash", "memory/", "not-file"),
    ("dot-slash", "./", "empty"),
    ("blank", "   ", "empty"),
    ("division-slash", "memory\u2215..\u2215MEMORY.md", "lookalike"),
    ("fullwidth-dots", "memory/\uff0e\uff0e/MEMORY.md", "lookalike"),
    ("fullwidth-slash", "memory\uff0fprojects\uff0fbilling.md", "lookalike"),
    ("two-dot-leader", "memory/\u2025/MEMORY.md", "lookalike"),
    ("lone-surrogate", "memory/\udc2e\udc2e/x.md", "bad-encoding"),
    ("not-markdown", "memory/notes.txt", "not-markdown"),
    ("outside-memory", "README.md", "not-memory"),
    ("index-file", ".memdir/index.sqlite", "not-memory"),
    ("file-url", "file:///etc/passwd", "not-memory"),
    ("directory", "memory/dir.md", "not-file"),
    ("fifo", "memory/pipe.md", "not-file"),
    ("missing", "memory/2031-01-01.md", "missing"),
    ("link-to-dotenv", "memory/env.md", "symlink-not-memory"),
    ("cited-link-to-dotenv", "memory/env.md#L1", "symlink-not-memory"),
    ("hard-link-out", "memory/hard.md", "hardlink"),
    ("ignored-folder", "memory/node_modules/x.md", "not-memory"),
    ("binary", "memory/blob.md", "binary"),
    ("link-loop", "memory/loop.md", "symlink-loop"),
    ("cited-traversal", "../outside/secret.md#L1-L2", "traversal"),
    ("colon-traversal", "memory/../MEMORY.md:1", "traversal"),
]


@pytest.mark.parametrize(("raw", "code"), [t[1:] for t in TRICKS], ids=[t[0] for t in TRICKS])
def test_each_trick_is_refused_with_its_code(tricky: MemoryTools, raw: str, code: str) -> None:
    result = tricky.call("memory_get", {"path": raw})
    assert result.is_error
    payload = result.payload
    assert payload["code"] == code, payload
    assert payload["text"] == "" and payload["disabled"] is True
    assert payload["error"] and payload["tool"] == "memory_get"
    text = result.to_json()
    assert CANARY not in text
    text.encode("utf-8")  # sendable: no lone surrogate echoed back


def test_there_are_at_least_twenty_distinct_tricks() -> None:
    assert len({raw for _, raw, _ in TRICKS}) >= 20
    assert len({code for _, _, code in TRICKS}) >= 12


def test_a_symlink_that_stays_inside_is_followed(tricky: MemoryTools) -> None:
    result = tricky.call("memory_get", {"path": "memory/inside.md"})
    assert not result.is_error
    assert "quokka exporter" in result.payload["text"]


def test_every_refusal_message_names_the_problem(tricky: MemoryTools) -> None:
    messages = {
        name: tricky.call("memory_get", {"path": raw}).payload["error"] for name, raw, _ in TRICKS
    }
    assert "'..'" in messages["dotdot"]
    assert "absolute" in messages["absolute"]
    assert "symlink" in messages["symlinked-folder"]
    assert "Markdown" in messages["not-markdown"]
    assert "does not exist" in messages["missing"]
    assert "folder" in messages["trailing-slash"]
    assert "look" in messages["fullwidth-dots"] and "NUL" in messages["nul-byte"]


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_link_swapped_while_reading_never_leaks(tmp_path: Path, linked: str) -> None:
    """A thread swaps a link (to the file, or to a folder on its way) between memory and the
    outside as fast as it can while memory_get reads: every answer is the memory file or a
    refusal, never the outside file."""
    ws = tmp_path / "ws"
    (ws / "memory" / "real").mkdir(parents=True)
    (ws / "memory" / "real" / "x.md").write_text("inside text\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x.md").write_text(f"{CANARY}\n")
    if linked == "file":
        read, inside, outside = "memory/x.md", Path("real/x.md"), tmp_path / "out" / "x.md"
    else:
        read, inside, outside = "memory/x/x.md", Path("real"), tmp_path / "out"
    link = ws / "memory" / read.split("/")[1]
    spare = ws / "memory" / "swap.tmp"
    link.symlink_to(inside)
    stop = threading.Event()

    def swap() -> None:
        flip = False
        while not stop.is_set():
            spare.unlink(missing_ok=True)
            spare.symlink_to(outside if flip else inside)
            os.replace(spare, link)
            flip = not flip

    answers = {"read": 0, "refused": 0}
    interval = sys.getswitchinterval()
    with MemoryTools.open(ws, overrides={"embedding.provider": "none"}) as tools:
        swapper = threading.Thread(target=swap, daemon=True)
        sys.setswitchinterval(1e-5)
        swapper.start()
        try:
            deadline = time.monotonic() + 30
            for _ in range(3000):
                result = tools.call("memory_get", {"path": read})
                assert CANARY not in result.to_json()
                if result.is_error:
                    answers["refused"] += 1
                else:
                    assert result.payload["text"] == "inside text"
                    answers["read"] += 1
                if time.monotonic() > deadline:
                    break
        finally:
            stop.set()
            swapper.join()
            sys.setswitchinterval(interval)
    assert answers["read"] and answers["refused"], answers  # the race really ran both ways
