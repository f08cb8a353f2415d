"""``memdir serve``: a real MCP client (the official SDK) against a real server process.

stdio: the client spawns ``python -m memdir serve``. HTTP: the test starts ``memdir serve
--http --port 0`` on 127.0.0.1, reads the URL it prints, and talks streamable HTTP to it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memdir.cli import cli
from memdir.prompt import memory_prompt
from memdir.tools import tool_schemas

pytestmark = pytest.mark.timeout(90)

TOKEN = "test-token-0123456789abcdef"


def _make_ws(root: Path) -> Path:
    (root / "memory" / "projects").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# Memory\n\n- We chose PostgreSQL for billing.\n")
    (root / "memory" / "2026-01-12.md").write_text("# 2026-01-12\n\n- Met Bob: quokka migration.\n")
    (root / "memory" / "projects" / "billing.md").write_text("# Billing\n\nquokka exporter\n")
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return _make_ws(tmp_path / "ws")


def _env() -> dict[str, str]:
    """The server's environment: this one without MEMDIR_* settings, keyword search only."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_")}
    return {**clean, "MEMDIR_EMBEDDING_PROVIDER": "none"}


def _stdio(ws: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memdir", "serve", "-w", str(ws), *extra], env=_env()
    )


def _dump(tool: Any) -> dict[str, Any]:
    return dict(tool.model_dump(by_alias=True, mode="json", exclude_none=True))


async def _exercise(client: Client) -> None:
    """List the tools and call each one, good and bad, through ``client``."""
    listed = await client.list_tools()
    assert [_dump(t) for t in listed.tools] == tool_schemas("mcp")
    assert client.instructions == memory_prompt()

    found = await client.call_tool("memory_search", {"query": "quokka", "minScore": 0})
    assert not found.is_error
    assert found.structured_content is not None
    assert {hit["path"] for hit in found.structured_content["results"]} == {
        "memory/2026-01-12.md",
        "memory/projects/billing.md",
    }
    assert json.loads(found.content[0].text) == found.structured_content  # type: ignore[union-attr]

    got = await client.call_tool("memory_get", {"path": "MEMORY.md", "from": 3, "lines": 1})
    assert not got.is_error and got.structured_content is not None
    assert got.structured_content["text"] == "- We chose PostgreSQL for billing."

    wrote = await client.call_tool("memory_write", {"content": "- The capybara budget passed"})
    assert not wrote.is_error and wrote.structured_content is not None
    again = await client.call_tool("memory_search", {"query": "capybara", "minScore": 0})
    assert again.structured_content is not None
    assert [h["path"] for h in again.structured_content["results"]] == [
        wrote.structured_content["path"]
    ]

    for name, arguments, code in [
        ("memory_search", {"query": ""}, "invalid_arguments"),
        ("memory_get", {"path": "../etc/passwd"}, "traversal"),
        ("memory_get", {"path": "/etc/passwd"}, "absolute"),
        ("memory_get", {"path": "memory/nope.md"}, "missing"),
        ("memory_write", {"content": "x", "target": "elsewhere"}, "invalid_arguments"),
        ("memory_delete", {}, "unknown_tool"),
    ]:
        failed = await client.call_tool(name, arguments)
        assert failed.is_error, (name, arguments)
        payload = json.loads(failed.content[0].text)  # type: ignore[union-attr]
        assert payload["code"] == code and payload["error"]
    # The server is still fine after the errors.
    assert not (await client.call_tool("memory_search", {"query": "billing"})).is_error


async def test_stdio(ws: Path) -> None:
    async with Client(_stdio(ws)) as client:
        await _exercise(client)


async def test_stdio_legacy_handshake_read_only_agent(ws: Path) -> None:
    """The initialize handshake that Claude Desktop and most clients use; serve options apply."""
    (ws / "memory" / "agents" / "bot").mkdir(parents=True)
    (ws / "memory" / "agents" / "bot" / "n.md").write_text("bot quokka note\n")
    params = _stdio(ws, "--read-only", "--agent", "bot", "--scope", "group")
    async with Client(params, mode="legacy") as client:
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["memory_search", "memory_get"]
        assert client.instructions == memory_prompt(
            tools=["memory_search", "memory_get"], scope="group"
        )
        found = await client.call_tool("memory_search", {"query": "quokka", "minScore": 0})
        assert found.structured_content is not None
        assert found.structured_content["scope"] == "group"
        assert "memory/agents/bot/n.md" in {h["path"] for h in found.structured_content["results"]}
        refused = await client.call_tool("memory_get", {"path": "MEMORY.md"})
        assert refused.is_error
        assert json.loads(refused.content[0].text)["code"] == "scope-long-term"  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``memdir serve --http`` on a free port of 127.0.0.1 with a token; yields its URL.

    One server for the module: starting one takes seconds on a busy machine."""
    ws = _make_ws(tmp_path_factory.mktemp("http") / "ws")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdir", "serve", "-w", str(ws), "--http", "--port", "0"],
        env={**_env(), "MEMDIR_TOKEN": TOKEN},
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    match = re.search(r"serving MCP at (http://127\.0\.0\.1:\d+/mcp)", line)
    assert match, line + proc.stderr.read()
    try:
        yield match.group(1)
    finally:
        proc.terminate()
        assert proc.wait(timeout=20) == 0  # a clean shutdown, not a kill
        proc.stderr.close()


async def test_http_with_the_token(http_server: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(http_server, http_client=http)) as client,
    ):
        await _exercise(client)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-0123456789abcdef"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ],
    ids=["none", "wrong", "longer", "basic", "no-scheme"],
)
def test_http_refuses_requests_without_the_right_token(
    http_server: str, headers: dict[str, str]
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    reply = httpx.post(http_server, json=body, headers=headers, timeout=30)
    assert reply.status_code == 401
    assert reply.headers["www-authenticate"].startswith("Bearer")
    assert reply.json()["error"] == "unauthorized"


async def test_http_client_without_token_cannot_connect(http_server: str) -> None:
    with pytest.raises(ExceptionGroup) as info:
        async with Client(http_server) as client:
            await client.list_tools()
    assert info.group_contains(MCPError, depth=None)


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--host", "0.0.0.0"], {}, "refusing to serve on 0.0.0.0 without a bearer token"),
        (["--host", "192.168.1.7"], {}, "without a bearer token"),
        (["--host", "::"], {}, "without a bearer token"),
        (["--host", "example.com"], {}, "without a bearer token"),
        (["--host", "0.0.0.0", "--token", "short"], {}, "at least 16 characters"),
        (["--host", "0.0.0.0"], {"MEMDIR_TOKEN": ""}, "without a bearer token"),
    ],
)
def test_non_loopback_bind_without_a_token_refuses_to_start(
    ws: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    result = CliRunner().invoke(cli, ["serve", "-w", str(ws), "--http", *args], env=env)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Hint:" in result.stderr


def test_loopback_names() -> None:
    from memdir.mcp import is_loopback

    assert all(is_loopback(h) for h in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "10.0.0.1", "example.com", ""))


async def test_stdio_serves_the_lcm_tools_with_lcm(ws: Path) -> None:
    from memdir.config import load_config
    from memdir.context.compaction import ContextSettings
    from memdir.context.lcm import LosslessContext

    lcm = LosslessContext(
        load_config(ws, overrides={"embedding.provider": "none"}),
        settings=ContextSettings(window_tokens=512, fresh_messages=2),
    )
    working = lcm.working("chat-1")
    for i in range(40):
        working.add(
            "user" if i % 2 == 0 else "assistant", f"Turn {i}: 缓存方案第{i}版 OPS-{700 + i}."
        )
    assert working.compact().compacted
    lcm.close()
    names = [
        "memory_search",
        "memory_get",
        "memory_write",
        "lcm_grep",
        "lcm_describe",
        "lcm_expand",
    ]
    async with Client(_stdio(ws, "--lcm")) as client:
        listed = await client.list_tools()
        assert [_dump(t) for t in listed.tools] == tool_schemas("mcp", tools=names)
        assert "lcm_grep" in (client.instructions or "")
        found = await client.call_tool("lcm_grep", {"pattern": "OPS-703"})
        assert not found.is_error and found.structured_content is not None
        (hit,) = found.structured_content["results"]
        assert hit["summary"]
        expanded = await client.call_tool("lcm_expand", {"id": hit["summary"]})
        assert expanded.structured_content is not None
        texts = [m["content"] for m in expanded.structured_content["messages"]]
        assert "Turn 3: 缓存方案第3版 OPS-703." in texts
        described = await client.call_tool("lcm_describe", {"id": hit["summary"]})
        assert described.structured_content is not None
        assert described.structured_content["depth"] == 0
        missing = await client.call_tool("lcm_describe", {"id": "sum_0123456789abcdef"})
        assert missing.is_error
