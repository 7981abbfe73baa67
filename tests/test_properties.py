"""Property tests over the library API: random sequences of writes and reads keep knotwork's invariants.

A hypothesis state machine adds, updates, deletes, links and searches on a real store (in-memory SQLite,
no model) beside a plain model of what it should hold; after every step: a memory reads back as last
written, its history is its versions in order, search and list never show a deleted memory, and an
export imported into a fresh store gives back the same memories and links.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, precondition, rule

import knotwork
from knotwork import NotFound, Settings

NO_MODEL = Settings(embedder="none", kg_extract="none")
WORDS = st.sampled_from(["deploy", "billing", "release", "kafka", "cache", "retry", "ledger", "invoice"])
TEXT = st.lists(WORDS, min_size=2, max_size=6).map(" ".join)
WORKSPACES = st.sampled_from(["shop", "lab", None])


class Memories(RuleBasedStateMachine):
    ids = Bundle("ids")

    def __init__(self) -> None:
        super().__init__()
        self.mem = knotwork.open(":memory:", settings=NO_MODEL)
        self.live: dict[str, tuple[str, str | None, int]] = {}  # id -> (content, workspace, version)
        self.gone: set[str] = set()
        self.links: set[tuple[str, str, str]] = set()
        self.serial = 0

    def teardown(self) -> None:
        self.mem.close()

    @rule(target=ids, text=TEXT, workspace=WORKSPACES)
    def add(self, text: str, workspace: str | None) -> str:
        self.serial += 1
        m = self.mem.add(f"{text} #{self.serial}", workspace=workspace, consolidate=False)
        self.live[m.id] = (m.content, workspace, m.version)
        return m.id

    @precondition(lambda self: self.live)
    @rule(data=st.data(), text=TEXT)
    def update(self, data: st.DataObject, text: str) -> None:
        mid = data.draw(st.sampled_from(sorted(self.live)))
        self.serial += 1
        m = self.mem.update(mid, content=f"{text} #{self.serial}")
        _, workspace, version = self.live[mid]
        assert m.version == version + 1
        self.live[mid] = (m.content, workspace, m.version)

    @rule(mid=consumes(ids))
    def delete(self, mid: str) -> None:
        if mid in self.live:
            self.mem.delete(mid)
            del self.live[mid]
            self.gone.add(mid)
            self.links = {link for link in self.links if mid not in link[:2]}
        else:
            try:
                self.mem.delete(mid)
            except NotFound:
                pass
            else:
                raise AssertionError(f"deleted {mid} twice")

    @precondition(lambda self: len(self.live) >= 2)
    @rule(data=st.data(), kind=st.sampled_from(["relates_to", "references", "implements"]))
    def link(self, data: st.DataObject, kind: str) -> None:
        a, b = data.draw(st.lists(st.sampled_from(sorted(self.live)), min_size=2, max_size=2, unique=True))
        self.mem.link(a, b, kind)
        self.links.add((a, b, kind))

    @rule(word=WORDS, workspace=WORKSPACES)
    def search(self, word: str, workspace: str | None) -> None:
        hits = self.mem.search(word, workspace="*" if workspace is None else workspace, limit=50)
        shown = {h.memory.id for h in hits}
        assert not shown & self.gone
        for h in hits:
            assert h.memory.id in self.live and h.memory.content == self.live[h.memory.id][0]

    @invariant()
    def reads_back(self) -> None:
        for mid, (content, workspace, version) in self.live.items():
            m = self.mem.get(mid)
            assert (m.content, m.workspace, m.version) == (content, workspace, version)
            history = self.mem.history(mid)
            assert [v.version for v in history] == list(range(1, version + 1)) and history[-1].content == content
        listed = {m.id for m in self.mem.list(workspace="*", limit=1000)}
        assert listed == set(self.live)
        stored = {(r.from_id, r.to_id, r.type) for r in self.mem.list_links("*")}
        assert stored == self.links

    @precondition(lambda self: self.live)
    @rule()
    def export_import_round_trips(self) -> None:
        records = list(self.mem.export())
        with knotwork.open(":memory:", settings=NO_MODEL) as copy:
            copy.import_records(records)
            for mid, (content, workspace, version) in self.live.items():
                m = copy.get(mid)
                assert (m.content, m.workspace, m.version) == (content, workspace, version)
                assert [v.version for v in copy.history(mid)] == list(range(1, version + 1))
            assert {(r.from_id, r.to_id, r.type) for r in copy.list_links("*")} == self.links


TestMemories = Memories.TestCase
TestMemories.settings = settings(
    max_examples=25, stateful_step_count=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
