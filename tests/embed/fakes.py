"""A real HTTP server on 127.0.0.1 that each test scripts, speaking whatever wire format the
test needs, a helper that aims hosted embedders at it without sleeping between retries, and a
silent server that accepts connections and never answers (a hung provider)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from memdir.embed.providers import HostedEmbedder, create_hosted_embedder

TEST_KEY = "sk-test-SECRET-0123456789"


@dataclass
class Reply:
    """One scripted answer: a JSON-able ``body`` (or raw ``bytes``), status, headers, delay."""

    body: object = field(default_factory=dict)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: object


Handler = Callable[[Seen], Reply]


class FakeServer:
    """Answers POSTs from a queue of scripted replies, then from ``handler`` (if set)."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.handler: Handler | None = None
        self._queue: deque[Reply | Handler] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._make_handler())
        self._httpd.daemon_threads = True
        self._httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()

    def script(self, *replies: Reply | Handler) -> None:
        """Queue replies (or handlers computing one) for the next requests, in order."""
        with self._lock:
            self._queue.extend(replies)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def _answer(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            step = self._queue.popleft() if self._queue else self.handler
        if step is None:
            return Reply({"error": "no scripted reply"}, status=599)
        return step if isinstance(step, Reply) else step(seen)

    def _make_handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    body: object = json.loads(raw)
                except ValueError:
                    body = raw
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = server._answer(Seen(self.path, headers, body))
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = (
                    reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                )
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return _Handler


class SilentServer:
    """Accepts every connection on 127.0.0.1 and never reads or answers: a hung provider.

    ``connections`` counts the connections accepted so far.
    """

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def connections(self) -> int:
        return len(self._held)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(conn)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()
        for conn in self._held:
            conn.close()


def fake_vector(text: str) -> list[float]:
    """A deterministic 4-dim "embedding" of ``text``."""
    return [float(len(text)), float(text.count(" ")), 1.0, float(sum(map(ord, text)) % 7)]


def openai_reply(seen: Seen) -> Reply:
    """Answer an OpenAI-style request, listing items in reverse to exercise ``index``."""
    assert isinstance(seen.body, dict)
    data = [
        {"object": "embedding", "index": i, "embedding": fake_vector(t)}
        for i, t in enumerate(seen.body["input"])
    ]
    return Reply({"object": "list", "data": data[::-1], "model": seen.body["model"]})


@dataclass
class Hosted:
    """Builds hosted embedders aimed at ``server`` and records the retry waits."""

    server: FakeServer
    waits: list[float] = field(default_factory=list)
    made: list[HostedEmbedder] = field(default_factory=list)

    def __call__(self, provider: str, *, path: str = "", **kwargs: object) -> HostedEmbedder:
        kwargs.setdefault("api_key", TEST_KEY)
        kwargs.setdefault("base_url", self.server.url + path)
        embedder = create_hosted_embedder(
            provider,
            sleep=self.waits.append,
            rand=lambda: 0.5,  # jitter factor exactly 1: waits are the base delays
            **kwargs,  # type: ignore[arg-type]
        )
        self.made.append(embedder)
        return embedder
