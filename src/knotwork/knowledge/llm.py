"""Entities and facts from an LLM behind an OpenAI-compatible ``/v1/chat/completions``.

Ollama, vLLM, llama.cpp's server, LM Studio and OpenAI accept a JSON-schema
``response_format``; the schema below asks for ``{entities, facts}`` in the
shape callers pass to ``add``. Models still wrap JSON in code fences, add a
sentence before it, or leave out a field, so the answer is *repaired* before
it is judged: fences stripped, the first JSON object taken, each item checked
on its own (a bad fact is dropped, the good ones kept). Only an answer with
no usable JSON object at all is an error, and every error says whether a
retry may help; the queue (``services.extraction``) decides when to retry.
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from knotwork.domain.temporal import to_text
from knotwork.embed.openai_compat import RETRY_STATUSES, _clip, _error_detail
from knotwork.errors import InvalidInput
from knotwork.knowledge import validate
from knotwork.knowledge.models import Extraction

SYSTEM_PROMPT = (
    "You extract a knowledge graph from one memory of an AI agent or assistant. "
    "Return the named things it mentions (people, places, organisations, software, files, concepts) as entities, "
    "and what it states about them as facts: subject, a short predicate in snake_case (lives_in, works_at, uses, "
    "prefers, depends_on, owns...), object. Use the names as written. Give valid_at/invalid_at (ISO-8601) only "
    "when the text dates a fact; otherwise null. Leave out anything not stated. Answer with JSON only."
)

_NULLABLE_TEXT = {"type": ["string", "null"]}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["entities", "facts"],
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "type", "summary"],
                "properties": {"name": {"type": "string"}, "type": _NULLABLE_TEXT, "summary": _NULLABLE_TEXT},
            },
        },
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["subject", "predicate", "object", "valid_at", "invalid_at"],
                "properties": {
                    "subject": {"type": "string"},
                    "predicate": {"type": "string"},
                    "object": {"type": "string"},
                    "valid_at": _NULLABLE_TEXT,
                    "invalid_at": _NULLABLE_TEXT,
                },
            },
        },
    },
}

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


class ExtractionError(Exception):
    """The LLM gave nothing usable this time; ``retry`` says whether asking again may help."""

    def __init__(self, message: str, retry: bool = True) -> None:
        super().__init__(message)
        self.retry = retry


class _Answer(BaseModel):
    """The answer's outer shape; items are checked one by one afterwards."""

    model_config = ConfigDict(extra="ignore")
    entities: list[Any] = []
    facts: list[Any] = []


def first_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``, inside code fences or after prose; ExtractionError if none."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    raise ExtractionError(f"answer holds no JSON object: {_clip(text.encode())}")


def _keep_valid(items: list[Any], check: Any, allowed: frozenset[str]) -> list[Any]:
    """Each item that passes the caller's own input rules (unknown keys and nulls dropped first)."""
    out = []
    for item in items:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict):
            continue
        clean = {k: v for k, v in item.items() if k in allowed and v is not None}
        try:
            out += check([clean])
        except InvalidInput:
            continue
    return out


def parse(content: str) -> Extraction:
    """The extraction in a model's answer text, repaired as far as it can be."""
    document = first_json_object(content)
    try:
        answer = _Answer.model_validate(document)
    except ValidationError as exc:
        raise ExtractionError(f"answer is not {{entities: [...], facts: [...]}}: {exc.errors()[0]['msg']}") from None
    return Extraction(
        _keep_valid(answer.entities, validate.entities, validate.ENTITY_FIELDS),
        _keep_valid(answer.facts, validate.facts, validate.FACT_FIELDS),
    )


@dataclass
class ChatEndpoint:
    """One OpenAI-compatible chat-completions endpoint, asked with a JSON schema for its answer."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"LLM base URL must be http(s)://host[:port]/v1, got {self.base_url!r}")
        root = self.base_url.rstrip("/")
        self.url = root if root.endswith("/chat/completions") else root + "/chat/completions"
        proxies: dict[str, str] | None = {} if parsed.hostname in _LOOPBACK else None
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxies))

    def body(self, system: str, user: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}},
        }

    def ask(self, body: dict[str, Any]) -> str:
        """The answer's message text; ExtractionError (with ``retry``) when the endpoint or its answer fails."""
        payload = self._post(json.dumps(body).encode())
        try:
            document = json.loads(payload)
            message = document["choices"][0]["message"]["content"]
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError):
            raise ExtractionError(f"{self.url} answered without choices[0].message.content: {_clip(payload)}") from None
        if not isinstance(message, str):
            raise ExtractionError(f"{self.url} answered with a non-text message: {_clip(payload)}")
        return message

    def _post(self, body: bytes) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            # 4xx other than rate limiting will answer the same next time (bad model name, bad key).
            retry = exc.code in RETRY_STATUSES
            raise ExtractionError(f"{self.url} answered HTTP {exc.code}: {_error_detail(exc)}", retry=retry) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            raise ExtractionError(f"{self.url} cannot be reached: {reason}") from None


@dataclass
class LLMExtractor(ChatEndpoint):
    """Entities and facts of one memory at a time."""

    instructions: str = ""

    def request_body(self, content: str, valid_at: datetime | None) -> dict[str, Any]:
        system = SYSTEM_PROMPT + (f"\n\nAlso: {self.instructions.strip()}" if self.instructions.strip() else "")
        dated = f"Written at {to_text(valid_at)}.\n\n" if valid_at else ""
        return self.body(system, dated + content, "knowledge_graph", SCHEMA)

    def extract(self, content: str, valid_at: datetime | None = None) -> Extraction:
        """Ask once; ExtractionError (with ``retry``) when the endpoint or its answer fails."""
        return parse(self.ask(self.request_body(content, valid_at)))
