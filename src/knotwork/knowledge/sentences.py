"""Text cut into sentences, the unit both the extraction rules and the fact scorer read."""

from __future__ import annotations

import re

_SENTENCE = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9@#`])|\n+|;\s+"
)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
