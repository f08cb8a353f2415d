"""Agent-tool figures: memory_search round trips over MCP, memory_write throughput.

1. **Search latency.** Builds the sample workspace (``memdir init --sample``), indexes it, then
   starts ``memdir serve`` and drives it with the official MCP SDK client: over stdio (the
   client spawns the server) and over streamable HTTP (the server listens on 127.0.0.1 with
   a bearer token). After a warm-up, every ``memory_search`` call is timed from the client's
   request to its parsed result. The in-process dispatcher (``MemoryTools.call``) is timed
   too, as the floor the transports add to. Each search mode is measured: ``hybrid`` with
   the default local embedding model, and ``keyword`` (``embedding.provider = none``).
2. **Write throughput.** W processes (separate interpreters) each open the workspace and, on
   a common start signal, make M ``memory_write`` calls to today's daily file: append under
   the lock, fsync, re-index. The same run with bare ``memdir.writer.append_note`` shows what
   the re-index costs. Every run checks that no note was lost or split.

Usage::

    python bench/tools_latency.py                 # full run, writes bench/results/tools_latency.json
    python bench/tools_latency.py --quick         # fewer calls, for a smoke test
    OPENBLAS_NUM_THREADS=1 python bench/tools_latency.py --out bench/results/tools_latency-blas1.json
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from common import RESULTS_DIR, environment, latency_summary, print_table, write_results

QUERIES = (
    "which database did we choose",
    "Alice's coffee",
    "周五部署",
    "发布计划",
    "invoice PDF renderer memory leak",
    "TLS certificate renewal",
    "should refunds be a separate service",
    "exchange rate caching",
    "王芳 负责什么",
    "load test latency of /invoices",
)
TOKEN = "bench-token-0123456789abcdef"
PROVIDER = {"hybrid": "local", "keyword": "none"}


def _env(mode: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_")}
    return {
        **clean,
        "MEMDIR_EMBEDDING_PROVIDER": PROVIDER[mode],
        "MEMDIR_SEARCH_MODE": mode,
    }


def _memdir(*args: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "memdir", *args], check=True, env=env, capture_output=True
    )


def make_workspace(root: Path) -> Path:
    """The bundled sample notes, indexed with and without vectors."""
    ws = root / "sample"
    _memdir("init", "--sample", "-w", str(ws), env=_env("keyword"))
    _memdir("index", "-w", str(ws), env=_env("hybrid"))
    return ws


# -- search latency ---------------------------------------------------------------------------
async def _timed_searches(client: Client, calls: int, warmup: int) -> list[float]:
    async def one(n: int) -> float:
        started = time.perf_counter()
        result = await client.call_tool("memory_search", {"query": QUERIES[n % len(QUERIES)]})
        elapsed = time.perf_counter() - started
        if result.is_error or result.structured_content is None:
            raise RuntimeError(f"memory_search failed: {result.content}")
        return elapsed

    for n in range(warmup):
        await one(n)
    return [await one(n) for n in range(calls)]


async def stdio_latency(ws: Path, mode: str, calls: int, warmup: int) -> list[float]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memdir", "serve", "-w", str(ws)], env=_env(mode)
    )
    async with Client(params) as client:
        return await _timed_searches(client, calls, warmup)


@contextmanager
def http_server(ws: Path, mode: str) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memdir", "serve", "-w", str(ws), "--http", "--port", "0"],
        env={**_env(mode), "MEMDIR_TOKEN": TOKEN},
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    match = re.search(r"(http://\S+/mcp)", line)
    if match is None:
        proc.kill()
        raise RuntimeError(f"server did not start: {line}{proc.stderr.read()}")
    try:
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


async def http_latency(url: str, calls: int, warmup: int) -> list[float]:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        return await _timed_searches(client, calls, warmup)


def in_process_latency(ws: Path, mode: str, calls: int, warmup: int) -> list[float]:
    from memdir.tools import MemoryTools

    overrides = {"embedding.provider": PROVIDER[mode], "search.mode": mode}
    with MemoryTools.open(ws, overrides=overrides) as tools:
        tools.memory.start_watching()  # as the server does: no re-check of the files per call
        tools.warm_up()
        times = []
        for n in range(warmup + calls):
            started = time.perf_counter()
            result = tools.call("memory_search", {"query": QUERIES[n % len(QUERIES)]})
            elapsed = time.perf_counter() - started
            if result.is_error:
                raise RuntimeError(result.to_json())
            if n >= warmup:
                times.append(elapsed)
        return times


def search_figures(ws: Path, modes: list[str], calls: int, warmup: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for mode in modes:
        print(f"memory_search, {mode}: in-process, stdio, http ({calls} calls each)", flush=True)
        figures.setdefault("in_process", {})[mode] = latency_summary(
            in_process_latency(ws, mode, calls, warmup)
        )
        figures.setdefault("mcp_stdio", {})[mode] = latency_summary(
            asyncio.run(stdio_latency(ws, mode, calls, warmup))
        )
        with http_server(ws, mode) as url:
            figures.setdefault("mcp_http", {})[mode] = latency_summary(
                asyncio.run(http_latency(url, calls, warmup))
            )
    return figures


# -- write throughput -------------------------------------------------------------------------
def _writer(ws: str, writer: int, count: int, full: bool, start: Any, out: Any) -> None:
    """A writer process: get ready, wait for the start signal, write, report its timings."""
    from memdir.tools import MemoryTools
    from memdir.tools.write import today
    from memdir.writer import append_note

    with MemoryTools.open(ws, overrides={"embedding.provider": "none"}) as tools:
        target = Path(ws) / "memory" / f"{today(tools.memory.config).isoformat()}.md"
        start.wait(timeout=300)  # never outlive a parent that died
        times = []
        for n in range(count):
            note = f"- bench writer {writer} note {n:04d} end"
            began = time.perf_counter()
            if full:
                result = tools.call("memory_write", {"content": note})
                if result.is_error:
                    raise RuntimeError(result.to_json())
            else:
                append_note(target, note)
            times.append(time.perf_counter() - began)
        out.put(times)


def write_run(base: Path, writers: int, count: int, *, full: bool) -> dict[str, Any]:
    ws = base / f"w{writers}-{'tool' if full else 'append'}"
    _memdir("init", "-w", str(ws), env=_env("keyword"))
    _memdir("index", "-w", str(ws), env=_env("keyword"))
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(writers + 1)
    out = context.Queue()
    procs = [
        context.Process(target=_writer, args=(str(ws), w, count, full, start, out))
        for w in range(writers)
    ]
    for proc in procs:
        proc.start()
    start.wait(timeout=300)  # every writer has its workspace open
    began = time.perf_counter()
    times = [t for _ in procs for t in out.get(timeout=600)]
    elapsed = time.perf_counter() - began
    for proc in procs:
        proc.join(timeout=60)
        if proc.exitcode != 0:
            raise RuntimeError(f"writer exited with {proc.exitcode}")
    notes = [
        line
        for daily in (ws / "memory").glob("20*.md")
        for line in daily.read_text(encoding="utf-8").split("\n")
        if line.startswith("- bench writer ")
    ]
    expected = {
        f"- bench writer {w} note {n:04d} end" for w in range(writers) for n in range(count)
    }
    intact = len(notes) == writers * count and set(notes) == expected
    if not intact:
        raise RuntimeError(f"lost or split notes: {len(notes)} of {writers * count}")
    return {
        "writers": writers,
        "writes_per_writer": count,
        "seconds": round(elapsed, 3),
        "writes_per_s": round(writers * count / elapsed, 1),
        "per_write": latency_summary(times),
        "intact": intact,
    }


def write_figures(base: Path, writer_counts: list[int], count: int) -> dict[str, Any]:
    figures: dict[str, Any] = {"memory_write": [], "append_only": []}
    for writers in writer_counts:
        print(f"memory_write: {writers} writers x {count}", flush=True)
        figures["memory_write"].append(write_run(base, writers, count, full=True))
        figures["append_only"].append(write_run(base, writers, count, full=False))
    return figures


# -- main -------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="timed searches per transport")
    parser.add_argument("--warmup", type=int, default=20, help="untimed searches first")
    parser.add_argument("--modes", default="hybrid,keyword", help="search modes to measure")
    parser.add_argument("--writers", default="1,6", help="writer process counts")
    parser.add_argument("--writes", type=int, default=50, help="memory_write calls per writer")
    parser.add_argument("--quick", action="store_true", help="30 calls, 10 writes: a smoke run")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "tools_latency.json")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.warmup, args.writes = 30, 5, 10
    modes = [m for m in args.modes.split(",") if m]
    writer_counts = [int(w) for w in args.writers.split(",") if w]
    with tempfile.TemporaryDirectory(prefix="memdir-bench-tools-") as tmp:
        base = Path(tmp)
        ws = make_workspace(base)
        search = search_figures(ws, modes, args.calls, args.warmup)
        writes = write_figures(base, writer_counts, args.writes)
    rows = [
        [surface, mode, s["p50_ms"], s["p95_ms"], s["p99_ms"]]
        for surface, by_mode in search.items()
        for mode, s in by_mode.items()
    ]
    print_table(["memory_search via", "mode", "p50 ms", "p95 ms", "p99 ms"], rows, digits=2)
    print()
    print_table(
        ["writes", "writers", "writes/s", "p50 ms", "p95 ms"],
        [
            [
                kind,
                r["writers"],
                r["writes_per_s"],
                r["per_write"]["p50_ms"],
                r["per_write"]["p95_ms"],
            ]
            for kind, runs in writes.items()
            for r in runs
        ],
        digits=2,
    )
    write_results(
        args.out,
        {
            "benchmark": "tools_latency",
            "figures": {"search_latency": search, "write_throughput": writes},
            "settings": {
                "workspace": "memdir init --sample (4 files)",
                "queries": list(QUERIES),
                "calls": args.calls,
                "warmup": args.warmup,
                "modes": {mode: {"embedding.provider": PROVIDER[mode]} for mode in modes},
                "writers": writer_counts,
                "writes_per_writer": args.writes,
                "http": "127.0.0.1, bearer token, streamable HTTP",
                # numpy's BLAS threads dominate hybrid latency on a small, busy machine
                "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
            },
            "environment": environment(),
        },
    )


if __name__ == "__main__":
    main()
