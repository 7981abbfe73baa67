"""A real OpenAI-compatible chat-completions server on 127.0.0.1 for the extraction tests.

The embedding test server (``tests/embed/_server.py``) with a chat route: it
answers ``POST /v1/chat/completions`` like Ollama or vLLM do. By default the
"model" reads ``NAME uses THING`` in the user message into facts, as JSON in
the message content; ``replies`` (used first, in order) make it misbehave:
any status, or any message content (:func:`said`), prose and fences included.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tests.embed._server import EmbeddingServer, Reply

__all__ = ["ChatServer", "Reply", "said", "toy_answer"]

USES = re.compile(r"([A-Z][\w.]+) uses ([A-Z][\w.]+)")


def toy_answer(text: str) -> str:
    facts = [{"subject": s, "predicate": "uses", "object": o, "valid_at": None, "invalid_at": None} for s, o in USES.findall(text)]
    names = sorted({n for f in facts for n in (f["subject"], f["object"])})
    entities = [{"name": n, "type": "software", "summary": None} for n in names]
    return json.dumps({"entities": entities, "facts": facts})


def completion(content: str, model: str | None = "toy") -> bytes:
    message = {"role": "assistant", "content": content}
    return json.dumps({"object": "chat.completion", "model": model, "choices": [{"index": 0, "message": message}]}).encode()


def said(content: str) -> Reply:
    """A 200 answer whose message content is exactly ``content``."""
    return Reply(body=completion(content))


@dataclass
class ChatServer(EmbeddingServer):
    def answer(self, path: str, body: dict[str, Any]) -> bytes:
        if path != "/v1/chat/completions":
            return super().answer(path, body)
        return completion(toy_answer(body["messages"][-1]["content"]), body.get("model"))

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]
