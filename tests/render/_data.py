"""Fixed values for renderer tests: memories, links and meta-relations with known times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from knotwork.domain.models import Memory, Relationship
from knotwork.services.links import MetaRelation, meta_relations

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
A = "01KQ0000000000000000AAAAAA"
B = "01KQ0000000000000000BBBBBB"
C = "01KQ0000000000000000CCCCCC"
SHORT = {A: "00AAAAAA", B: "00BBBBBB", C: "00CCCCCC"}


def memory(id: str, content: str, age: timedelta, **fields) -> Memory:
    at = NOW - age
    base = dict(workspace=None, agent_id=None, category=None, tags={}, artifacts=[], evidence=[], importance=0.5,
                metadata={}, created_at=at, updated_at=at, valid_at=at, invalid_at=None, content_hash="f" * 64)
    return Memory(id=id, content=content, **{**base, **fields})


CACHE = memory(
    A,
    "We cache report queries in Redis for ten minutes because the reports page took eight seconds to load "
    "under month-end traffic, and the finance team asked for it to be faster than two seconds.",
    timedelta(hours=2),
    workspace="shop", category="decision", tags={"team": "platform", "urgent": ""},
    artifacts=["src/reports/cache.py"], evidence=["ADR-014", "PR-123"], metadata={"written_via": "claude-code"},
)
TTL = memory(B, "Redis TTL for report keys is 600 s", timedelta(days=3), artifacts=["ops/redis.conf", "ops/ttl.md"])
OLD = memory(C, "Reports used to be computed on every request", timedelta(days=125), category="fact")

LINK = Relationship("01KQ00000000000000000LINK1", A, B, "relates_to", "shop", NOW - timedelta(hours=1))


def relations_of(m: Memory, *extra: MetaRelation) -> list[MetaRelation]:
    """The store's meta-relations of ``m`` plus ``extra`` (similar/about, which the store may not project yet)."""
    return [*meta_relations(m), *extra]


SIMILAR_TO_CACHE = MetaRelation("similar", "memory", B, 0.912, "Redis TTL for report keys is 600 s")
ABOUT_REDIS = MetaRelation("about", "entity", "Redis")
ABOUT_REPORTS = MetaRelation("about", "entity", "ReportsModule")
