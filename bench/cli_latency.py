"""Command-line latency: what one ``memdir`` call costs as a whole process, and in process.

Builds a ~40-note workspace (the bundled sample plus generated daily notes), indexes it, then
times N runs of each command as a separate process, as a shell runs it (the ``memdir`` console
script next to this Python, else ``python -m memdir``):

* ``python -c pass`` — the interpreter's own start-up, the floor under every figure;
* ``memdir --version``;
* ``memdir search --set search.mode=keyword QUERY`` (the default local embedder configured, but
  a keyword search must not load it, nor numpy or httpx);
* ``memdir search QUERY`` with ``MEMDIR_EMBEDDING_PROVIDER=none`` (hybrid requested, keyword
  used).

The same search is also timed in process: through the click command (``CliRunner``) and through
``Memory.search()``, each on a warm process, so the gap to the whole-process figure is start-up
(interpreter, imports) and exit. Goal: keyword ``memdir search`` ≤ 300 ms as a whole process.

Processes run as an installed package does, with bytecode caches: ``PYTHONDONTWRITEBYTECODE`` is
dropped and ``PYTHONPYCACHEPREFIX`` points the caches at a temporary folder, which the untimed
first run of each command fills (without caches every run compiles memdir's sources: about
+50 ms). Besides wall time, each process's CPU time (user + system) is recorded, which other load
on the machine disturbs less.

Usage::

    python bench/cli_latency.py               # 20 runs each, writes bench/results/cli_latency.json
    python bench/cli_latency.py --runs 5      # quicker
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from common import RESULTS_DIR, environment, latency_summary, print_table, write_results

QUERY = "invoice renderer memory leak"
NOTES = 40
TOPICS = (
    "the invoice renderer leaks memory on large PDFs; Bob is profiling it",
    "deploys move to Tuesday; Friday deploys need a second reviewer",
    "Alice prefers e-mail for anything with a price in it",
    "PostgreSQL 16 stays the billing database; no sharding before 10k tenants",
    "the TLS certificate for api.example.com renews on the 3rd",
    "exchange rates are cached for one hour; the ECB feed is the source",
    "王芳 负责发布计划，周五前确认",
    "load test: p95 of /invoices is 180 ms at 200 requests per second",
)


def memdir_command() -> list[str]:
    """The console script beside this interpreter (what a shell runs), else ``-m memdir``."""
    script = Path(sys.executable).with_name("memdir")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memdir"]


def build_workspace(root: Path) -> Path:
    """The bundled sample (``memdir init --sample``) plus generated notes: ``NOTES`` in all."""
    ws = root / "ws"
    subprocess.run(
        [*memdir_command(), "init", "--sample", "-w", str(ws)],
        check=True,
        capture_output=True,
    )
    have = sum(1 for p in ws.rglob("*.md") if ".memdir" not in p.parts)
    for i in range(NOTES - have):
        day = f"2026-10-{1 + i % 28:02d}" if i < 28 else f"2026-09-{1 + i % 28:02d}"
        lines = [f"# {day}", ""] + [f"- {TOPICS[(i + k) % len(TOPICS)]}" for k in range(3)]
        (ws / "memory" / f"{day}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ws


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_process(
    argv: Sequence[str], env: Mapping[str, str], runs: int
) -> tuple[list[float], list[float]]:
    """Wall and CPU times of ``runs`` runs of ``argv`` (after one untimed warm-up run)."""
    wall, cpu = [], []
    for i in range(runs + 1):
        cpu_before = _children_cpu()
        started = time.perf_counter()
        done = subprocess.run(argv, env=dict(env), capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr}")
        if i:
            wall.append(elapsed)
            cpu.append(_children_cpu() - cpu_before)
    return wall, cpu


def time_call(call: Callable[[], object], runs: int) -> list[float]:
    seconds = []
    for i in range(runs + 1):
        started = time.perf_counter()
        call()
        if i:
            seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs per command")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "cli_latency.json")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="memdir-cli-latency-"))
    try:
        ws = build_workspace(root)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("MEMDIR_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env["MEMDIR_HOME"] = str(root / "home")
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        none_env = {**env, "MEMDIR_EMBEDDING_PROVIDER": "none"}
        memdir = memdir_command()
        subprocess.run(
            [*memdir, "index", "-q", "-w", str(ws)], check=True, env=none_env, capture_output=True
        )
        keyword = ["search", "--set", "search.mode=keyword", "-w", str(ws), QUERY]
        none = ["search", "-w", str(ws), QUERY]
        processes = {
            "python -c pass": time_process([sys.executable, "-c", "pass"], env, args.runs),
            "memdir --version": time_process([*memdir, "--version"], env, args.runs),
            "memdir search (keyword mode)": time_process([*memdir, *keyword], env, args.runs),
            "memdir search (provider none)": time_process([*memdir, *none], none_env, args.runs),
        }

        from click.testing import CliRunner

        from memdir import Memory
        from memdir.cli import cli

        runner = CliRunner()

        def cli_search() -> None:
            result = runner.invoke(cli, keyword, catch_exceptions=False)
            assert result.exit_code == 0 and "memory/" in result.stdout, result.output

        with Memory(ws, overrides={"search.mode": "keyword"}) as mem:
            in_process = {
                "CliRunner search (keyword mode)": time_call(cli_search, args.runs),
                "Memory.search (keyword mode)": time_call(lambda: mem.search(QUERY), args.runs),
            }
        files = sum(1 for p in ws.rglob("*.md") if ".memdir" not in p.parts)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    figures = {name: latency_summary(s) for name, s in in_process.items()}
    for name, (wall, cpu) in processes.items():
        figures[name] = {**latency_summary(wall), "cpu": latency_summary(cpu)}
    figures = {name: figures[name] for name in [*processes, *in_process]}
    print_table(
        ["what", "p50 ms", "p95 ms", "CPU p50 ms"],
        [
            (name, f["p50_ms"], f["p95_ms"], f["cpu"]["p50_ms"] if "cpu" in f else "-")
            for name, f in figures.items()
        ],
        digits=1,
    )
    write_results(
        args.out,
        {
            "benchmark": "cli_latency",
            "settings": {"runs": args.runs, "files": files, "query": QUERY, "command": memdir},
            "goal": "keyword memdir search <= 300 ms as a whole process",
            "figures": figures,
            "environment": environment(),
        },
    )


if __name__ == "__main__":
    main()
