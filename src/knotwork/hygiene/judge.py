"""An LLM's decision on the consolidation cases the offline rules leave unclear.

The rules (:mod:`knotwork.hygiene.consolidate`) decide for precision first:
whatever they cannot prove is a NOOP, an UPDATE or a SUPERSEDE stays an ADD.
On the dev half of the labelled pairs (bench/consolidation.py), most of the
pairs the rules call ADD at a cosine of ``UNCLEAR_COSINE`` or more are in
truth something else (25 of 32; test half 36 of 41), and few below it are
(12 of 75; `python bench/consolidation.py` prints the table). So when an
LLM endpoint is configured, those cases alone go to it: the new memory and
the stored ones that near, numbered; it answers one decision as JSON. An
answer that cannot be used (endpoint down, no JSON, a target out of range)
leaves the rules' ADD standing: the LLM can only help, never lose an add.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from knotwork.hygiene.consolidate import Decision
from knotwork.knowledge.llm import ChatEndpoint, ExtractionError, first_json_object

UNCLEAR_COSINE = 0.80  # rules' ADD at or above this cosine is asked about (chosen on dev pairs)
MAX_SHOWN = 3  # stored memories shown to the LLM, nearest first
KINDS = ("ADD", "NOOP", "UPDATE", "SUPERSEDE")

SYSTEM_PROMPT = (
    "You keep an AI agent's long-term memory free of duplicates. A new memory arrives; stored memories that are "
    "close to it are listed, numbered. Decide one: ADD (the new memory states something none of them states), "
    "NOOP (it says nothing that stored memory `target` does not already say), UPDATE (it says everything stored "
    "memory `target` says, and more: that memory takes the new text), SUPERSEDE (a value that stored memory "
    "`target` states has changed, e.g. a version, a place, a preference: that memory is retired). A wrong NOOP or "
    "SUPERSEDE loses a true memory, so when unsure answer ADD. Answer with JSON only."
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["decision", "target", "reason"],
    "properties": {
        "decision": {"type": "string", "enum": list(KINDS)},
        "target": {"type": ["integer", "null"]},
        "reason": {"type": "string"},
    },
}

log = logging.getLogger("knotwork.hygiene")


def unclear(decision: Decision, candidates: list[tuple[str, str, float]]) -> bool:
    """Whether the rules' ``decision`` on these candidates (nearest first) is one to ask the LLM about."""
    return decision.kind == "ADD" and bool(candidates) and candidates[0][2] >= UNCLEAR_COSINE


@dataclass
class ConsolidationJudge:
    """Asks one chat endpoint about one new memory and its nearest stored ones."""

    endpoint: ChatEndpoint
    instructions: str = ""

    def request_body(self, new_text: str, shown: list[tuple[str, str, float]]) -> dict[str, Any]:
        system = SYSTEM_PROMPT + (f"\n\nWhat is worth keeping: {self.instructions.strip()}" if self.instructions.strip() else "")
        stored = "\n".join(f"{n}. {text}" for n, (_, text, _) in enumerate(shown, 1))
        user = f"New memory:\n{new_text}\n\nStored memories:\n{stored}"
        return self.endpoint.body(system, user, "consolidation", SCHEMA)

    def decide(self, new_text: str, candidates: list[tuple[str, str, float]]) -> Decision | None:
        """The LLM's decision over ``candidates`` (id, text, cosine; nearest first), or None when its answer
        cannot be used (the caller keeps its own)."""
        shown = candidates[:MAX_SHOWN]
        try:
            answer = first_json_object(self.endpoint.ask(self.request_body(new_text, shown)))
        except ExtractionError as exc:
            log.warning("consolidation LLM gave no usable answer: %s", exc)
            return None
        kind, target, reason = answer.get("decision"), answer.get("target"), answer.get("reason")
        if kind not in KINDS:
            return None
        reason = f"LLM: {reason.strip()[:200]}" if isinstance(reason, str) and reason.strip() else "LLM decision"
        if kind == "ADD":
            return Decision("ADD", None, reason)
        if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= len(shown):
            return None  # NOOP, UPDATE and SUPERSEDE need a stored memory to act on
        target_id, _, cosine = shown[target - 1]
        return Decision(kind, target_id, reason, cosine)
