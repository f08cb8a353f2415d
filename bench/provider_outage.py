"""A hosted embedding provider that goes silent: how long each command waits before answering.

Starts a server on 127.0.0.1 that accepts connections and never answers (the worst case: no
refusal, no error, just silence), configures it as an OpenAI-compatible embedding provider with
``embedding.timeout_s = T``, and times, on a ~40-note workspace:

* ``memdir index`` as a process: it tries the provider, then warns and leaves the chunks without
  vectors (and with ``--strict`` exits 5);
* ``memdir search`` as a process, right after that: the provider's pause is remembered across
  processes, so this answers from keyword search at once;
* the same with the remembered pause deleted (a process meeting the silence for the first time);
* ``memdir status`` as a process: it syncs text only and never waits on the provider;
* ``Memory.search()`` in process, the first search (pause deleted) and the ten after it.

Goal (issue #9): a search answers from keyword search within about ``T`` of the provider's
silence, and nothing waits on the provider again while its breaker is open. Before the fix a
search took 241 s at ``T = 5`` and every ``memory_search`` over MCP 120.9 s.

Usage::

    python bench/provider_outage.py               # T = 5 s, writes bench/results/provider_outage.json
    python bench/provider_outage.py --timeout 2   # quicker
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cli_latency import QUERY, build_workspace, memdir_command
from common import RESULTS_DIR, _import_memory, environment, print_table, write_results


class SilentServer:
    """Accepts every connection and reads what is sent, but never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._held.append(conn)  # kept open, never written to

    def close(self) -> None:
        self._stop.set()
        for conn in self._held:
            conn.close()
        self.sock.close()


def run(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    return {
        "seconds": round(time.perf_counter() - started, 3),
        "exit_code": done.returncode,
        "stderr": done.stderr.strip().splitlines()[-3:],
    }


def pause_files(ws: Path) -> list[Path]:
    return [p for p in (ws / ".memdir").glob("breaker*.json")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0, help="embedding.timeout_s")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "provider_outage.json")
    args = parser.parse_args()

    server = SilentServer()
    root = Path(tempfile.mkdtemp(prefix="memdir-outage-"))
    ws = build_workspace(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDIR_")}
    env.update(
        {
            "MEMDIR_EMBEDDING_PROVIDER": "openai-compatible",
            "MEMDIR_EMBEDDING_BASE_URL": f"http://127.0.0.1:{server.port}/v1",
            "MEMDIR_EMBEDDING_MODEL": "silent-model",
            "MEMDIR_EMBEDDING_TIMEOUT_S": str(args.timeout),
            "OPENAI_API_KEY": "sk-bench-not-a-real-key",
        }
    )
    memdir = [*memdir_command(), "-w", str(ws)]
    figures: dict[str, Any] = {}
    figures["index"] = run([*memdir, "index"], env)
    figures["index --strict"] = run([*memdir, "index", "--strict"], env)
    figures["search, pause remembered"] = run([*memdir, "search", QUERY], env)
    figures["status"] = run([*memdir, "status"], env)
    for path in pause_files(ws):
        path.unlink()
    figures["search, first to meet the silence"] = run([*memdir, "search", QUERY], env)

    for path in pause_files(ws):
        path.unlink()
    os.environ.update(env)
    with _import_memory()(ws) as mem:
        started = time.perf_counter()
        first = mem.search(QUERY)
        first_s = time.perf_counter() - started
        later = []
        for _ in range(10):
            started = time.perf_counter()
            response = mem.search(QUERY)
            later.append(time.perf_counter() - started)
        figures["Memory.search, first"] = {
            "seconds": round(first_s, 3),
            "mode": first.mode,
            "results": len(list(first)),
            "warnings": list(first.warnings),
        }
        figures["Memory.search, next 10 (max)"] = {
            "seconds": round(max(later), 4),
            "mode": response.mode,
            "results": len(list(response)),
        }
    figures["connections to the silent server"] = server.connections
    server.close()

    rows = [
        (name, f"{f['seconds']:.3f}", f.get("exit_code", f.get("mode", "")))
        for name, f in figures.items()
        if isinstance(f, dict)
    ]
    print(f"embedding.timeout_s = {args.timeout:g}; provider accepts and never answers")
    print_table(["what", "seconds", "exit / mode"], rows)
    write_results(
        args.out,
        {
            "benchmark": "provider_outage",
            "timeout_s": args.timeout,
            "figures": figures,
            "environment": environment(),
        },
    )


if __name__ == "__main__":
    main()
