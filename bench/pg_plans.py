"""The PostgreSQL k-NN statements' plans before the tables were ever analyzed, and after.

    python bench/pg_plans.py [--workspaces 10] [--per 600]

A server from the ``pgserver`` wheel, a store of ``--workspaces`` ×
``--per`` memories with synthetic clustered 384-float vectors (the plans do
not depend on the model), then the statements the vector source runs for a
search in one workspace and in every workspace, each under ``EXPLAIN
(ANALYZE, BUFFERS)``: first with the planner's statistics removed (as right
after a bulk load, before autovacuum analyzed anything: ``reltuples = -1``
and no ``pg_statistic`` rows), then after ``ANALYZE``. Printed per
statement: the plan's scans and joins, the rows a join filter threw away,
buffers and execution time. A plan that rematches every row of one side
against the other (``Join Filter`` over a ``Materialize``) is the one to
look for.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knotwork import Knotwork, Settings  # noqa: E402
from knotwork.app import open_store  # noqa: E402
from knotwork.domain.models import ALL_WORKSPACES, MemoryFilter  # noqa: E402
from knotwork.domain.temporal import now  # noqa: E402

TABLES = ("memories", "memory_vectors", "memory_tags")


class Clustered:
    """Synthetic vectors: a text's first word picks one of 50 centroids, the rest adds noise."""

    model_id = "synthetic-clustered@1"
    dim = 384
    max_tokens = 512

    def chunks(self, text: str) -> list[str]:
        return [text]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = []
        for t in texts:
            centre = np.random.default_rng(int(hashlib.sha256(t.split()[0].encode()).hexdigest()[:8], 16) % 50).standard_normal(self.dim)
            noise = np.random.default_rng(int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")).standard_normal(self.dim)
            v = centre + 0.8 * noise
            out.append(v / np.linalg.norm(v))
        return np.asarray(out, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workspaces", type=int, default=10)
    p.add_argument("--per", type=int, default=600)
    args = p.parse_args()
    import pgserver
    import psycopg
    from pgvector.psycopg import register_vector

    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    with tempfile.TemporaryDirectory() as tmp:
        server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="delete")
        url = server.get_uri()
        mem = Knotwork(open_store(url, Settings(kg_extract="none")), embedder=Clustered())
        for w in range(args.workspaces):
            items = [{"content": f"{words[i % 10]} note {i} in ws{w}, item {i * 7 % 13}", "workspace": f"ws{w}"} for i in range(args.per)]
            mem.add_many(items, consolidate=False, force=True)
        query = mem.embedder.embed_query("alpha question")
        statements: list[tuple[str, tuple]] = []
        mem.store.tracer = lambda sql, params: statements.append((sql, tuple(params)))
        print(f"{args.workspaces} x {args.per} memories; load {os.getloadavg()[0]:.1f}")
        with psycopg.connect(url, autocommit=True) as conn:
            register_vector(conn)
            for state in ("never analyzed", "analyzed"):
                if state == "analyzed":
                    conn.execute(f"ANALYZE {', '.join(TABLES)}")
                else:
                    names = ", ".join(f"'{t}'" for t in TABLES)
                    conn.execute(f"UPDATE pg_class SET reltuples = -1 WHERE relname IN ({names})")
                    conn.execute(f"DELETE FROM pg_statistic WHERE starelid IN ({', '.join(f'{chr(39)}{t}{chr(39)}::regclass' for t in TABLES)})")
                for scope in ("ws3", ALL_WORKSPACES):
                    statements.clear()
                    mem.store.vector_candidates(None, query, 100, MemoryFilter(workspace=scope), now(), 0.2)
                    for sql, params in statements:
                        if "memory_vectors" not in sql:
                            continue
                        conn.execute("SET hnsw.ef_search = 1000")
                        plan = [r[0] for r in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params).fetchall()]
                        shape = [line.strip().split("  (")[0] for line in plan if "Scan" in line or "Join" in line or "Materialize" in line or "Loop" in line]
                        removed = [line.strip() for line in plan if "Removed by Join Filter" in line]
                        print(f"- {state}, workspace {scope}: {sql[:60]}…")
                        print(f"  plan: {' / '.join(shape)}")
                        print(f"  {'; '.join(removed) or 'no join filter'}; {plan[-1].strip()}")
        mem.close()
        server.cleanup()


if __name__ == "__main__":
    main()
