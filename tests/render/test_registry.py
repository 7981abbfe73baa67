"""A new operation (e.g. the knowledge graph's) becomes renderable with one ``register`` line."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

import knotwork
from knotwork.config import Settings
from knotwork.render import RENDERERS, register, render
from knotwork.render.respond import Responder


@dataclass(frozen=True)
class Entity:
    name: str
    kind: str

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind}


@pytest.fixture
def nodes_operation():
    register("test_nodes", lambda result, view: "\n".join(f"{i}. {e.name} [{e.kind}]" for i, e in enumerate(result, 1)))
    yield "test_nodes"
    RENDERERS.pop("test_nodes")


def test_one_line_registers_text_and_json_follows(nodes_operation: str, tmp_path) -> None:
    found = [Entity("Redis", "library"), Entity("ReportsModule", "module")]
    assert render(nodes_operation, found) == "1. Redis [library]\n2. ReportsModule [module]"
    assert json.loads(render(nodes_operation, found, "json")) == [{"name": "Redis", "kind": "library"}, {"name": "ReportsModule", "kind": "module"}]
    with knotwork.open(tmp_path / "k.db", settings=Settings(embedder="none")) as mem:
        assert Responder(mem)(nodes_operation, found) == "1. Redis [library]\n2. ReportsModule [module]"


def test_a_module_table_of_one_argument_renderers_registers_in_one_line() -> None:
    from knotwork.render import register_all

    table = {"test_episodes": lambda eps: "\n".join(f"- {e}" for e in eps), "test_cleared": lambda n: f"✓ Cleared: {n} entities"}
    register_all(table, lambda operation, result: {"operation": operation, "result": result})
    try:
        assert render("test_episodes", ["a", "b"]) == "- a\n- b"
        assert render("test_cleared", 12) == "✓ Cleared: 12 entities"
        assert json.loads(render("test_cleared", 12, "json")) == {"operation": "test_cleared", "result": 12}
    finally:
        for op in table:
            RENDERERS.pop(op)


def test_cli_search_takes_relation_detail(tmp_path, capsys, monkeypatch) -> None:
    from knotwork.adapters.cli import main

    monkeypatch.setenv("KNOTWORK_EMBEDDER", "none")
    db = str(tmp_path / "k.db")
    main(["add", "Nightly backups go to the cold bucket", "--db", db, "--artifact", "ops/backup.sh", "--tag", "team=ops"])
    capsys.readouterr()
    shapes = {}
    for detail in ("none", "minimal", "standard", "full"):
        main(["search", "nightly backups", "--db", db, "--relation-detail", detail])
        shapes[detail] = capsys.readouterr().out.splitlines()[1:]
    assert shapes == {
        "none": [],
        "minimal": ["  artifact: ops/backup.sh"],
        "standard": ["  artifact: ops/backup.sh", "  tags: team=ops"],
        "full": ["  references_artifact artifact=ops/backup.sh", "  tagged team=ops", "  in_scope global=global"],
    }
    with pytest.raises(SystemExit) as exit_info:
        main(["search", "nightly", "--db", db, "--relation-detail", "all"])
    assert exit_info.value.code == 2 and "--relation-detail" in capsys.readouterr().err
