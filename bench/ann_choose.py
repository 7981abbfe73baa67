"""Which HNSW library for bench/ann.py: hnswlib against usearch on 50k noisy clustered 384-d vectors, one thread.

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/ann_choose.py   (needs: pip install usearch==2.26.6)
"""
import time, numpy as np
from usearch.index import Index
import hnswlib
rng = np.random.default_rng(0)
n, d = 50_000, 384
centers = rng.standard_normal((200, d)).astype(np.float32)
x = centers[rng.integers(0, 200, n)] + 0.6 * rng.standard_normal((n, d)).astype(np.float32)
x /= np.linalg.norm(x, axis=1, keepdims=True)
q = x[rng.integers(0, n, 200)] + 0.3 * rng.standard_normal((200, d)).astype(np.float32)
q /= np.linalg.norm(q, axis=1, keepdims=True)
exact = [set(np.argsort(-(x @ v))[:10].tolist()) for v in q]
def run(name, build, search):
    t = time.perf_counter(); idx = build(); bt = time.perf_counter() - t
    lat = []; rec = []
    for v, e in zip(q, exact):
        t = time.perf_counter(); got = search(idx, v); lat.append((time.perf_counter() - t) * 1000)
        rec.append(len(e & set(got)) / 10)
    print(f"{name}: build {bt:.1f}s  recall@10 {np.mean(rec):.3f}  p50 {np.percentile(lat,50):.2f} p95 {np.percentile(lat,95):.2f} ms")
def ub():
    i = Index(ndim=d, metric="ip", dtype="f32", connectivity=16, expansion_add=128, expansion_search=64)
    i.add(np.arange(n), x, threads=1); return i
run("usearch", ub, lambda i, v: i.search(v, 10, threads=1).keys.tolist())
def hb():
    i = hnswlib.Index(space="ip", dim=d); i.init_index(max_elements=n, ef_construction=128, M=16); i.set_num_threads(1)
    i.add_items(x, np.arange(n)); i.set_ef(64); return i
run("hnswlib", hb, lambda i, v: i.knn_query(v, 10)[0][0].tolist())
t=time.perf_counter()
for v in q[:50]: x @ v
print(f"exact scan 50k: {(time.perf_counter()-t)/50*1000:.2f} ms/query")
