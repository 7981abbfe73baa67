"""The two data sets every system in bench/peers sees, in one plain shape.

A corpus is ``docs`` (``key``, ``text``, ``part``) and ``questions`` (``id``,
``text``, ``part``): each question is asked in its ``part`` (a store of its
own, or the system's own partition: a Mem0 user, a knotwork workspace). The
gold labels stay with bench/longmemeval.py and bench/codemem.py, whose
``evaluate`` functions score the ranked keys.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import codemem as cm  # noqa: E402
import longmemeval as lme  # noqa: E402

SEED = 18


@dataclass(frozen=True, slots=True)
class Doc:
    key: str
    text: str
    part: str


@dataclass(frozen=True, slots=True)
class Ask:
    id: str
    text: str
    part: str


@dataclass(slots=True)
class Corpus:
    name: str
    docs: list[Doc]
    questions: list[Ask]
    note: str

    def to_json(self) -> dict:
        return {"name": self.name, "docs": [asdict(d) for d in self.docs], "questions": [asdict(q) for q in self.questions]}


def turn_key(key: lme.TurnKey) -> str:
    return f"{key[0]}#{key[1]}"


def longmemeval(path: Path, n_questions: int | None, seed: int = SEED) -> tuple[Corpus, list[lme.Question]]:
    """``n_questions`` questions drawn with ``random.Random(seed)``, and every distinct session of their haystacks, pooled.

    With ``n_questions=None`` this is bench/longmemeval.py's whole pool (all
    500 questions, 10,866 turns).
    """
    data = lme.load(path)
    if n_questions is None or n_questions >= len(data.questions):
        chosen = list(data.questions)
        sessions = {t.session_id for t in data.turns}
    else:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            haystack = {q["question_id"]: q["haystack_session_ids"] for q in json.load(fh)}
        ids = sorted(q.id for q in data.questions)
        picked = set(random.Random(seed).sample(ids, n_questions))
        chosen = [q for q in data.questions if q.id in picked]
        sessions = {sid for q in chosen for sid in haystack[q.id]}
    docs = [Doc(turn_key(t.key), t.text, "longmemeval") for t in data.turns if t.session_id in sessions]
    asks = [Ask(q.id, q.text, "longmemeval") for q in chosen]
    note = (f"LongMemEval oracle, pooled: {len(asks)} questions (random.Random({seed}).sample of the 500 by id) "
            f"against every turn of their {len(sessions)} haystack sessions ({len(docs)} turns) in one store"
            if len(chosen) < len(data.questions) else f"LongMemEval oracle, pooled: all 500 questions, {len(docs)} turns")
    return Corpus("longmemeval", docs, asks, note), chosen


def codemem(half: str = "test") -> tuple[Corpus, list[cm.Question]]:
    """Every memory of bench/codemem (one part per workspace) and the questions of one half."""
    data = cm.load()
    questions = [q for q in data.questions if q.half == half]
    docs = [Doc(m["id"], m["content"], m["workspace"]) for m in data.memories]
    asks = [Ask(q.id, q.text, q.workspace) for q in questions]
    note = (f"bench/codemem {half} half: {len(asks)} questions over {len(docs)} memories in "
            f"{len({d.part for d in docs})} workspaces, each asked in its own workspace; text only (no dates, tags or links)")
    return Corpus("codemem", docs, asks, note), questions
