"""A query with no letters or digits is refused, naming the problem; recall takes such a prompt as asking nothing."""

from __future__ import annotations

import pytest

from knotwork import Knotwork
from knotwork.domain import rules
from knotwork.errors import InvalidInput

NOTHING_TO_MATCH = ["???", "-", "...", " -- ", "!?;:()[]{}"]


@pytest.mark.parametrize("query", NOTHING_TO_MATCH)
def test_a_query_of_punctuation_alone_is_refused(mem: Knotwork, query: str) -> None:
    mem.add("Deploys need two approvals - see the runbook...", workspace="ops")
    for search in (mem.search, mem.search_nodes):
        with pytest.raises(InvalidInput) as refused:
            search(query, workspace="ops")
        assert refused.value.field == "query"
        assert "has no letters or digits" in str(refused.value) and repr(query.strip()) in str(refused.value)


def test_words_digits_and_pictographs_are_searched(mem: Knotwork) -> None:
    mem.add("Deploys need two approvals", workspace="ops")
    mem.add("Ticket 4711 is the rollout", workspace="ops")
    assert [h.memory.content for h in mem.search("deploys?", workspace="ops")] == ["Deploys need two approvals"]
    assert [h.memory.content for h in mem.search("#4711", workspace="ops")] == ["Ticket 4711 is the rollout"]
    assert rules.searchable("🚀") and rules.searchable("é") and rules.searchable("日本") and not rules.searchable("—…")


def test_recall_takes_a_prompt_of_punctuation_as_asking_nothing(mem: Knotwork) -> None:
    mem.add("Deploys need two approvals", workspace="ops")
    asked = mem.recall("prompt", workspace="ops", query="???", sections=["facts"])  # a hook's prompt: no error
    assert asked.query is None and "approvals" not in asked.text
    assert "approvals" in mem.recall("prompt", workspace="ops", query="deploys approvals", sections=["facts"]).text
