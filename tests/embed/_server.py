"""A real OpenAI-compatible embedding server on 127.0.0.1 for the tests.

It speaks ``POST /v1/embeddings`` over HTTP like Ollama or vLLM do, with a
deterministic toy model (letter counts), and can be told to misbehave:
answer with a given status or body, or stall.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

DIM = 8


def toy_vector(text: str) -> list[float]:
    """Unnormalised, never zero: 1 + count of each of the letters a..h."""
    return [1.0 + text.lower().count(letter) for letter in "abcdefgh"]


def expected(texts: list[str]) -> np.ndarray:
    rows = np.asarray([toy_vector(t) for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@dataclass
class Reply:
    status: int = 200
    body: bytes | None = None
    delay: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class EmbeddingServer:
    """Serves until :meth:`stop`; ``replies`` are used first, in order."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0  # 0: any free port; a given one lets a test stop a server and start it again there

    def start(self) -> EmbeddingServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(Recorded(self.path, dict(self.headers), body))
                reply = owner.replies.pop(0) if owner.replies else Reply()
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.body if reply.body is not None else owner.answer(self.path, body)
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._httpd.server_address[1]
        self._httpd.daemon_threads = True
        # shutdown() waits for the loop's next look at its flag: every 0.05 s, not the default 0.5 s at each stop
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def answer(self, path: str, body: dict[str, Any]) -> bytes:
        if path != "/v1/embeddings":
            return json.dumps({"error": f"no route {path}"}).encode()
        texts = body["input"]
        data = [{"object": "embedding", "index": i, "embedding": toy_vector(t)} for i, t in enumerate(texts)]
        data.reverse()  # servers may answer out of order; the index is what counts
        return json.dumps({"object": "list", "model": body["model"], "data": data}).encode()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
