"""A search's ``about`` relations read each entity's name and summary only: the same names and previews as the
whole entities give, on both backends, for an entity many memories mention."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import knotwork
from knotwork import Settings
from knotwork.service import Knotwork


@pytest.fixture
def kg(target: str) -> Iterator[Knotwork]:
    with knotwork.open(target, settings=Settings(embedder="none")) as mem:
        yield mem


def test_about_relations_name_each_entity_with_its_summary(kg: Knotwork) -> None:
    first = kg.add("The ReportsModule uses Redis.", entities=[{"name": "Redis", "summary": "an in-memory key-value store"}])
    for i in range(30):  # an entity many memories mention
        kg.add(f"Job {i} of the ReportsModule reads from Redis.")
    store = kg.store
    mentioned = store.kg_mentions([first.id])[first.id]
    whole = store.kg_get_entities(mentioned)
    assert store.kg_entity_names(mentioned) == {eid: (e.name, e.summary) for eid, e in whole.items()}
    assert whole[next(e for e in mentioned if whole[e].name == "Redis")].mentions == 31
    about = {r.target_value: r.preview for r in kg.relations([first.id])[first.id] if r.type == "about"}
    assert about == {e.name: e.summary or None for e in whole.values()}
    assert about["Redis"].startswith("an in-memory key-value store")  # the caller's summary, as the entity holds it
    assert store.kg_entity_names(["no-such-entity"]) == {}
