"""Compact search output loses nothing an agent acts on: parse it back and find all of the JSON form."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

import knotwork
from knotwork import Knotwork
from knotwork.config import Settings
from knotwork.render import View, render
from knotwork.render.compact import ENTITIES_SHOWN, SIMILAR_SHOWN
from knotwork.render.respond import Responder
from knotwork.services.links import MetaRelation

# One similar memory: id, optional score, optional JSON-quoted preview; items joined by "; ".
SIMILAR_ITEM = re.compile(r'(?:^|; )([0-9A-HJKMNP-TV-Z]{8,26})(?: \d\.\d\d)?(?: "(?:[^"\\]|\\.)*")?')
MORE = re.compile(r" \(\+(\d+) more\)$")
WORDS = "cache redis invoice ledger deploy canary rollback schema index queue worker retry timeout budget".split()


@pytest.fixture(scope="module")
def mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Knotwork]:
    """One store for the module (the tests only search and read it): its 120 adds, graph included, are made once."""
    rng = random.Random(7)
    with knotwork.open(tmp_path_factory.mktemp("roundtrip") / "k.db", settings=Settings(embedder="none")) as m:
        m.add_many([
            {
                "content": " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60))) + f" note {i}",
                "category": rng.choice([None, "decision", "lesson"]),
                "tags": {f"k{j}": rng.choice(["", "v1", "blue-green"]) for j in range(rng.randint(0, 3))},
                "artifacts": [f"src/mod{i}/file{j}.py" for j in range(rng.randint(0, 3))],
                "evidence": [f"ADR-{i}{j}" for j in range(rng.randint(0, 2))],
            }
            for i in range(120)
        ])
        yield m


def parse(text: str) -> list[dict[str, Any]]:
    """Compact search text -> [{id (as shown), score, artifacts, similar, entities, tags, evidence}]."""
    hits: list[dict[str, Any]] = []
    for line in text.splitlines():
        if not line.startswith("  "):
            ref, score, _ = line.split(" ", 2)
            hits.append({"id": ref, "score": float(score), "artifacts": [], "similar": [], "entities": [], "tags": {}, "evidence": []})
            continue
        key, _, value = line.strip().partition(": ")
        hit = hits[-1]
        more = MORE.search(value)
        if more:  # "(+N more)": the first few are shown, the JSON has them all
            value = value[: more.start()]
            hit[f"{key}_more"] = int(more.group(1))
        if key in ("artifact", "artifacts", "entities", "evidence"):
            hit["artifacts" if key.startswith("artifact") else key] = value.split(", ")
        elif key == "tags":
            hit["tags"] = dict((pair.split("=", 1) + [""])[:2] for pair in value.split(", "))
        elif key == "similar":
            hit["similar"] = [m.group(1) for m in SIMILAR_ITEM.finditer(value)]
        else:
            raise AssertionError(f"unexpected relation line {line!r}")
    return hits


def assert_same(mem: Knotwork, compact_text: str, json_text: str) -> int:
    parsed, full = parse(compact_text), json.loads(json_text)["hits"]
    assert len(parsed) == len(full) > 0
    for shown, hit in zip(parsed, full):
        rel = hit["relations"]
        assert mem.resolve(shown["id"]) == hit["memory"]["id"]
        assert shown["score"] == pytest.approx(hit["score"], abs=0.005)
        assert shown["artifacts"] == ([rel["artifact"]] if "artifact" in rel else rel.get("artifacts", []))
        assert shown["artifacts"] == hit["memory"]["artifacts"]
        assert shown["tags"] == rel.get("tags", {}) == hit["memory"]["tags"]
        assert shown["evidence"] == rel.get("evidence", []) == hit["memory"]["evidence"]
        entities, similar = rel.get("entities", []), [s["id"] for s in rel.get("similar", [])]
        assert shown["entities"] == entities[:ENTITIES_SHOWN] and len(shown["entities"]) + shown.get("entities_more", 0) == len(entities)
        assert [mem.resolve(s) for s in shown["similar"]] == similar[:SIMILAR_SHOWN]  # the nearest (the JSON has all)
    return len(parsed)


@pytest.mark.parametrize("query", ["redis cache", "deploy canary rollback", "invoice ledger schema", "queue worker retry"])
def test_compact_search_holds_every_id_artifact_tag_and_evidence_of_the_json(mem: Knotwork, query: str) -> None:
    respond = Responder(mem)
    hits = mem.search(query, limit=20)
    assert assert_same(mem, respond("search", hits), respond("search", hits, "json")) == len(hits)


def test_similar_and_entities_survive_the_round_trip_too(mem: Knotwork) -> None:
    # The store does not project similar/about meta-relations yet: add them as it will.
    hits = mem.search("redis cache", limit=10)
    ids = [h.memory.id for h in hits]
    others = [m.id for m in mem.list(limit=200)]
    rels = mem.relations(ids)
    for n, mid in enumerate(ids):
        rels[mid] = rels[mid] + [
            MetaRelation("similar", "memory", others[(n * 7 + k) % len(others)], 0.9 - k / 10, f"preview, with; marks {k}")
            for k in range(n % 3)
        ] + [MetaRelation("about", "entity", name) for name in ("Redis", f"Module{n}")[: n % 3]]
    shown = [*ids, *(r.target_value for rs in rels.values() for r in rs if r.type == "similar")]
    compact_view = View(short=mem.short_ids(shown), relations=rels)
    checked = assert_same(mem, render("search", hits, view=compact_view), render("search", hits, "json", View(relations=rels)))
    assert checked == len(hits) == 10
