"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for the extraction tests.

It answers ``POST /v1/chat/completions`` like Ollama or vLLM do. By default
the "model" reads ``NAME uses THING`` sentences of the user message into
facts, as JSON in the message content; ``replies`` (used first, in order)
make it misbehave: any status, any content, prose and code fences included.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USES = re.compile(r"([A-Z][\w.]+) uses ([A-Z][\w.]+)")


def toy_answer(text: str) -> str:
    facts = [{"subject": s, "predicate": "uses", "object": o, "valid_at": None, "invalid_at": None} for s, o in USES.findall(text)]
    names = sorted({n for f in facts for n in (f["subject"], f["object"])})
    entities = [{"name": n, "type": "software", "summary": None} for n in names]
    return json.dumps({"entities": entities, "facts": facts})


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # the message content; None: the toy model's answer
    raw: bytes | None = None    # the whole response body, as is


@dataclass
class ChatServer:
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    def start(self) -> ChatServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                owner.requests.append(body)
                reply = owner.replies.pop(0) if owner.replies else Reply()
                if reply.raw is not None:
                    payload = reply.raw
                elif self.path != "/v1/chat/completions":
                    reply, payload = Reply(404), json.dumps({"error": {"message": f"no route {self.path}"}}).encode()
                elif reply.status != 200:
                    payload = json.dumps({"error": {"message": f"status {reply.status} as scripted"}}).encode()
                else:
                    content = reply.content if reply.content is not None else toy_answer(body["messages"][-1]["content"])
                    payload = json.dumps({"object": "chat.completion", "model": body.get("model"),
                                          "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
