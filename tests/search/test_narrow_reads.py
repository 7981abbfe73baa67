"""Search stages read the columns they need: the names an entity goes by without counting its mentions."""

from __future__ import annotations

import knotwork
from knotwork.knowledge.resolve import normalize


def _instagram(mem: knotwork.Knotwork) -> tuple[str, str, str]:
    old = mem.add(
        "Quick update on my side project: my Instagram account has 1,200 followers, mostly from the travel photos.",
        valid_at="2023-05-01T10:00:00Z",
    )
    mem.add("Can you suggest a playlist for long drives?", valid_at="2023-05-03T10:00:00Z")
    new = mem.add(
        "I'd like tips for planning a photo walk in the old town. By the way, Instagram says I'm at 1,500 followers now.",
        valid_at="2023-07-01T10:00:00Z",
    )
    entity = next(e for e in mem.store.kg_get_entities(list(mem.store.kg_mentions([old.id])[old.id])).values() if e.name == "Instagram")
    return old.id, new.id, entity.id


def test_the_store_reads_an_entitys_name_and_aliases_as_its_whole_row_has_them(mem: knotwork.Knotwork) -> None:
    _, _, eid = _instagram(mem)
    for alias in ("Insta", "IG"):
        mem.store.kg_add_alias(None, normalize(alias), alias, eid)
    ids = list(mem.store.kg_entity_ids())
    whole = mem.store.kg_get_entities(ids)
    assert mem.store.kg_entity_aliases([*ids, "missing"]) == {i: (e.name, e.aliases) for i, e in whole.items()}
    assert mem.store.kg_entity_aliases([eid])[eid] == ("Instagram", ("IG", "Insta"))


def test_memory_current_finds_the_named_entity_by_an_alias_without_counting_mentions(target: str) -> None:
    seen: list[str] = []
    with knotwork.open(target, tracer=lambda sql, params: seen.append(sql)) as mem:
        old, new, eid = _instagram(mem)
        mem.store.kg_add_alias(None, normalize("Insta"), "Insta", eid)
        seen.clear()
        # The question names the entity by its alias only: the topic test reads the aliases.
        found = [h.memory.id for h in mem.search("How many followers do I have on Insta?", recipe="memory_current")]
    assert found.index(new) < found.index(old)
    assert not [s for s in seen if "entity_mentions m WHERE m.entity_id" in s]
