"""Importing the graph: an older export (no graph) is extracted again, a bad graph record writes nothing,
an import into a store that knows some names joins them, a repeated import adds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import knotwork
from knotwork import InvalidInput, Settings
from knotwork.store.sqlite import scaled

NO_MODEL = Settings(embedder="none")


def _export(location: str) -> list[dict]:
    with knotwork.open(location, settings=NO_MODEL) as mem:
        return list(mem.export())


def test_an_export_without_a_graph_has_its_graph_extracted_again(tmp_path: Path, target: str) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Jeff lives in Seattle.", workspace="lab", valid_at="2024-01-01")
        mem.add("Notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "works_at", "object": "Initech"}])
    older = [{k: v for k, v in r.items() if k != "mentions"} for r in _export(source) if "record" not in r]
    with knotwork.open(target, settings=NO_MODEL) as mem:
        report = mem.import_records(older)
        assert report.added == 2
        facts = {(f.fact, f.extractor) for f in mem.entity_facts("Jeff", workspace="lab", include_invalid=True)}
        assert ("Jeff lives in Seattle", "rules") in facts  # what the text says, found again
        assert not any(p == "Jeff works at Initech" for p, _ in facts)  # a caller's fact an older export lost
        seattle = next(e for e in mem.episodes(workspace="lab") if e.content.startswith("Jeff"))
        assert {"Jeff", "Seattle"} <= set(seattle.entities) and seattle.facts == 1


def test_a_graph_export_is_restored_not_extracted(tmp_path: Path, target: str) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "works_at", "object": "Initech",
                                                  "confidence": 0.6}])
    records = _export(source)
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        mem.import_records(records)
        (f,) = mem.entity_facts("Jeff", workspace="lab")
        assert (f.fact, f.extractor, f.confidence) == ("Jeff works at Initech", "caller", 0.6)
        again = mem.import_records(records)  # everything is there: nothing is added twice
        assert again.added == 0 and len(mem.entity_facts("Jeff", workspace="lab", include_invalid=True)) == 1


def test_an_import_joins_names_the_store_knows(tmp_path: Path, target: str) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "works_at", "object": "Initech"}])
    records = _export(source)
    with knotwork.open(target, settings=NO_MODEL) as mem:
        mine = mem.add("More notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "likes", "object": "Tea"}])
        jeff = mem.entity("Jeff", workspace="lab").id
        mem.import_records(records)
        assert mem.entity("Jeff", workspace="lab").id == jeff  # one Jeff, the store's
        assert {f.fact for f in mem.entity_facts(jeff, workspace="lab")} == {"Jeff likes Tea", "Jeff works at Initech"}
        assert mem.entity("Jeff", workspace="lab").mentions == 2 and mine.id


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda r: r.update(confidence=2), "confidence"),
        (lambda r: r.update(subject_id="nope"), "subject_id"),
        (lambda r: r.update(record="rumour"), "unknown record kind"),
        (lambda r: r.update(valid_at="someday"), "valid_at"),
    ],
)
def test_a_bad_graph_record_is_named_and_nothing_is_written(tmp_path: Path, target: str, change, needle: str) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "works_at", "object": "Initech"}])
    records = _export(source)
    index = next(i for i, r in enumerate(records) if r.get("record") == "fact")
    change(records[index])
    with knotwork.open(target, settings=NO_MODEL) as mem:
        with pytest.raises(InvalidInput, match=needle) as raised:
            mem.import_records(records)
        assert f"record {index + 1}" in str(raised.value)
        assert mem.store.count_memories() == 0 and mem.store.kg_entity_ids() == []


def test_cli_import_of_a_bad_graph_record_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests._cli import run

    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "works_at", "object": "Initech"}])
    records = _export(source)
    for r in records:
        if r.get("record") == "fact":
            r["confidence"] = -1
    f = tmp_path / "bad.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, _, err = run(capsys, "import", str(f), "--db", str(tmp_path / "b.db"))
    assert code == 2 and "confidence" in err and len(err.strip().splitlines()) == 1


def test_an_imported_value_is_placed_in_time_beside_the_stores_own(tmp_path: Path, target: str) -> None:
    """The store knows Jeff lives in Portland (2025); the import says Seattle (2024) and repeats Portland:
    Seattle arrives retired at Portland's start, the repeat only adds its memory to the stored fact."""
    source = str(tmp_path / "a.db")
    jeff = {"subject": "Jeff", "predicate": "lives_in"}
    with knotwork.open(source, settings=Settings(embedder="none", kg_extract="none")) as mem:
        mem.add("Jeff lives in Seattle.", workspace="lab", facts=[{**jeff, "object": "Seattle", "valid_at": "2024-01-01"}])
        told = mem.add("Jeff is in Portland.", workspace="lab",
                       facts=[{**jeff, "object": "Portland", "valid_at": "2025-01-01", "confidence": 0.9}])
    records = _export(source)
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        mine = mem.add("Jeff moved to Portland.", workspace="lab",
                       facts=[{**jeff, "object": "Portland", "valid_at": "2025-01-01", "confidence": 0.5}])
        mem.import_records(records)
        history = {f.object: f for f in mem.entity_facts("Jeff", workspace="lab", include_invalid=True)}
        assert sorted(history) == ["Portland", "Seattle"]
        assert history["Seattle"].invalid_at is not None and history["Seattle"].invalid_at.year == 2025
        assert history["Seattle"].superseded_by == history["Portland"].id
        assert set(history["Portland"].sources) == {mine.id, told.id} and history["Portland"].confidence == 0.9
        assert [f.object for f in mem.entity_facts("Jeff", workspace="lab")] == ["Portland"]


def test_a_graph_record_cannot_join_two_workspaces(tmp_path: Path, target: str) -> None:
    """An import whose fact names an entity of another workspace (here: an id the store holds in "shop", claimed
    for "lab") leaves that fact and mention out; the store's own entity is untouched."""
    with knotwork.open(target, settings=Settings(embedder="none", kg_extract="none")) as mem:
        mem.add("Shop notes", workspace="shop", facts=[{"subject": "Till", "predicate": "uses", "object": "Stripe"}])
        till = mem.entity("Till", workspace="shop")
        source = str(tmp_path / "a.db")
        with knotwork.open(source, settings=Settings(embedder="none", kg_extract="none")) as other:
            other.add("Lab notes", workspace="lab", facts=[{"subject": "Jeff", "predicate": "uses", "object": "Vim"}])
        records = _export(source)
        jeff = next(r["id"] for r in records if r.get("record") == "entity" and r["name"] == "Jeff")
        for r in records:  # a forged export: Jeff's id is shop's Till's
            if r.get("record") == "entity" and r["id"] == jeff:
                r["id"] = till.id
            if r.get("record") == "fact":
                r["subject_id"] = till.id
            if "mentions" in r:
                r["mentions"] = [till.id if e == jeff else e for e in r["mentions"]]
        mem.import_records(records)
        assert [f.fact for f in mem.entity_facts(till.id, workspace="shop")] == ["Till uses Stripe"]
        assert mem.entity(till.id, workspace="shop").mentions == 1
        assert mem.entity_facts("Vim", workspace="lab") == []


def test_entities_exported_without_vectors_get_them_from_the_importing_stores_model(tmp_path: Path) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=Settings(embedder="none", kg_extract="none")) as mem:
        mem.add("Notes", workspace="lab", entities=[{"name": "Jeff Brown", "type": "person", "summary": "runs the lab"}],
                facts=[{"subject": "Jeff Brown", "predicate": "works_at", "object": "Initech"}])
    records = _export(source)
    assert not any("vector" in r for r in records if r.get("record") == "entity")
    with knotwork.open(tmp_path / "b.db", settings=Settings(kg_extract="none")) as mem:
        mem.import_records(records)
        jeff = mem.entity("Jeff Brown", workspace="lab").id
        vectors = mem.store.kg_vectors_of([jeff])
        made = mem.knowledge.embed_names([("Jeff Brown", "person", "runs the lab")])[0]
        # name and note, as ingest embeds a new entity; SQLite keeps it as int8 with a scale (store/sqlite/scaled.py)
        assert vectors[jeff] == scaled.unpack(scaled.pack(made.astype("<f4").tobytes()))
        again = [r for r in mem.export() if r.get("record") == "entity" and r["id"] == jeff][0]
        assert again["vector"]["model"] == mem.embedder.model_id


def test_an_export_without_a_graph_is_read_in_through_the_enrichment_queue(tmp_path: Path, target: str) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Jeff lives in Seattle.", workspace="lab", valid_at="2024-01-01")
        mem.add("Jeff moved to Portland.", workspace="lab", valid_at="2025-01-01")
    older = [{k: v for k, v in r.items() if k != "mentions"} for r in _export(source) if "record" not in r]
    background = Settings(embedder="none", enrich="background", home=tmp_path / "home")
    with knotwork.open(target, settings=background) as mem:
        mem.enrichment.stop()  # nothing drains: what the import itself did is all there is
        assert mem.import_records(older).added == 2
        assert mem.enrichment_backlog() == {"pending": 2, "running": 0, "failed": 0}
        assert mem.search_facts("Jeff", workspace="lab") == []  # not read in by the import itself
        assert [h.memory.content for h in mem.search("Portland", workspace="lab")] == ["Jeff moved to Portland."]
        mem.start_enrichment_worker()
        assert mem.wait_for_extraction(60) is True
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}
        facts = [f for f in mem.entity_facts("Jeff", workspace="lab", include_invalid=True) if f.predicate == "lives_in"]
        assert sorted((f.object, f.invalid_at is None, f.extractor) for f in facts) == [
            ("Portland", True, "rules"), ("Seattle", False, "rules")]


def test_an_export_without_a_graph_is_read_in_by_the_import_itself_when_enrichment_is_inline(
        tmp_path: Path, target: str) -> None:
    source = str(tmp_path / "a.db")
    with knotwork.open(source, settings=NO_MODEL) as mem:
        mem.add("Jeff lives in Seattle.", workspace="lab", valid_at="2024-01-01")
    older = [{k: v for k, v in r.items() if k != "mentions"} for r in _export(source) if "record" not in r]
    with knotwork.open(target, settings=Settings(embedder="none", enrich="inline")) as mem:
        mem.import_records(older)
        assert mem.enrichment_backlog() == {"pending": 0, "running": 0, "failed": 0}
        assert [f.fact for f in mem.entity_facts("Jeff", workspace="lab")] == ["Jeff lives in Seattle"]
