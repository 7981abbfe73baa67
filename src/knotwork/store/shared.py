"""What both stores do in the same SQL but for how a column is tested against a batch of ids.

A mixin of ``SQLiteStore`` and ``PostgresStore`` (last among their bases, after the engine's own
mixins): the dialect's ``ids_in`` (store/where.py) is that test, ``IN ({ids})`` (the placeholders the SQLite
store's ``_rows_by_ids`` fills in, one batch at a time) or ``= ANY(%s)`` (the list PostgreSQL binds at once);
the dialect says the rest where a query differs (``ranking_facts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knotwork.domain.models import RankingFacts, Relationship
from knotwork.store.where import Dialect


class SharedStore:
    _dialect: Dialect
    _rows_by_ids: Any
    _run: Any
    transaction: Any
    stored_links_touching: Any

    def links_touching(
        self, memory_ids: Sequence[str], direction: str = "both", types: Sequence[str] | None = None
    ) -> list[Relationship]:
        """Links leaving (outgoing), entering (incoming) or touching (both) any of ``memory_ids``."""
        return [link.relationship() for link in self.stored_links_touching(memory_ids, direction, types)]

    def ranking_facts(self, memory_ids: Sequence[str]) -> dict[str, RankingFacts]:
        """The columns rerankers use, without decoding whole memories (most candidates are never shown).

        It runs on every search's candidates: the SQL is each engine's as it always was, and a time is read per
        row only where the engine hands it back as text (SQLite)."""
        d = self._dialect
        rows = self._rows_by_ids(
            f"SELECT id, valid_at, importance, {d.first.format(col='artifacts')},"
            f" length(content) - length(replace(replace(content, ' ', ''), {d.char}(10), '')) + 1"
            f" FROM memories WHERE id {self._dialect.ids_in}",
            memory_ids,
        )
        if d.text_times:
            read = d.read_time
            return {r[0]: RankingFacts(read(r[1]), r[2], r[4], r[3]) for r in rows}
        return {r[0]: RankingFacts(r[1], r[2], r[4], r[3]) for r in rows}

    def clear_vectors(self) -> None:
        """Remove every vector, and the similar lists made from them."""
        with self.transaction():
            self._run("DELETE FROM memory_vectors")
            self._run("DELETE FROM memory_similar")

    def similar_lists(self, memory_ids: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
        """Each memory's stored neighbours (id, score), nearest first; empty slots left out."""
        rows = self._rows_by_ids(
            "SELECT memory_id, neighbour_id, score FROM memory_similar"
            f" WHERE memory_id {self._dialect.ids_in} AND neighbour_id IS NOT NULL ORDER BY memory_id, rank",
            memory_ids,
        )
        out: dict[str, list[tuple[str, float]]] = {}
        for mid, neighbour, score in rows:
            out.setdefault(mid, []).append((neighbour, score))
        return out

    def similar_referrers(self, neighbour_ids: Sequence[str]) -> set[str]:
        """Memories whose similar list names any of ``neighbour_ids``."""
        return {r[0] for r in self._rows_by_ids(f"SELECT memory_id FROM memory_similar WHERE neighbour_id {self._dialect.ids_in}", neighbour_ids)}
