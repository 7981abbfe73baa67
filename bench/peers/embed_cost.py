"""What one add puts through the embedding model, per system, and what that costs in model CPU.

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/peers/embed_cost.py [--lme-questions 100] [--sample 300] [--rounds 2]

The peers' data sets as bench/peers/run.py builds them. For every memory, the tokens (MiniLM's WordPiece, [CLS] and
[SEP] included) of:

- the text as one sequence, uncut;
- what Mem0 and mcp-memory-service put through the model: one text per add (bench/peers/embed_server.py's counters
  show 1.00 texts per add for both), cut by ``embed()`` to the model's 256-token window;
- what knotwork's add puts through it: the memory's passages (``MiniLMEmbedder.chunks``: runs of whole sentences of
  at most 40 words), every token of the text, plus [CLS] and [SEP] per passage.

Then the model's CPU per memory (this process, all threads, ``time.process_time``) for a sample of the memories,
embedded one add at a time both ways with the same in-process ``MiniLMEmbedder`` (no HTTP: the embedding server adds
its own framing on top), in alternating rounds. basic-memory and the MCP reference server embed nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus as corpora  # noqa: E402
from run import default_lme_path  # noqa: E402

from knotwork.embed.onnx_minilm import MiniLMEmbedder  # noqa: E402


def counts(emb: MiniLMEmbedder, texts: list[str]) -> dict[str, float]:
    tok = emb._tokenizer_ready()
    whole = [len(e.ids) for e in tok.encode_batch(texts)]
    passages = [emb.chunks(t) for t in texts]
    ours = [sum(len(e.ids) for e in tok.encode_batch(p)) for p in passages]
    cut = [min(n, emb.max_tokens) for n in whole]
    return {
        "memories": len(texts),
        "chars": statistics.mean(len(t) for t in texts),
        "tokens": statistics.mean(whole),
        "tokens_p95": sorted(whole)[int(0.95 * (len(whole) - 1))],
        "over_window": sum(n > emb.max_tokens for n in whole) / len(whole),
        "peer_tokens_run": statistics.mean(cut),
        "knotwork_passages": statistics.mean(len(p) for p in passages),
        "knotwork_tokens_run": statistics.mean(ours),
    }


def model_cpu(emb: MiniLMEmbedder, texts: list[str], rounds: int) -> dict[str, list[float]]:
    """CPU ms per memory of the two ways, alternating, ``rounds`` times each."""
    out: dict[str, list[float]] = {"knotwork": [], "peer": []}
    emb.embed(["warm the model up before anything is timed"])
    for _ in range(rounds):
        for way in ("knotwork", "peer"):
            start = time.process_time()
            for t in texts:
                emb.embed(emb.chunks(t) if way == "knotwork" else [t])
            out[way].append((time.process_time() - start) / len(texts) * 1000)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lme-questions", type=int, default=100)
    p.add_argument("--lme-path", type=Path, default=default_lme_path())
    p.add_argument("--sample", type=int, default=300, help="memories per data set whose model CPU is measured (seeded)")
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    emb = MiniLMEmbedder()
    sets = [corpora.longmemeval(args.lme_path, args.lme_questions or None)[0], corpora.codemem("test")[0]]
    print("| data set | memories | chars | tokens per memory (p95) | over 256 tokens | Mem0 / mcp-memory-service: "
          "tokens run per add | knotwork: passages, tokens run per add | model CPU ms per add, knotwork (rounds) | "
          "model CPU ms per add, one text cut at 256 (rounds) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for corpus in sets:
        texts = [d.text for d in corpus.docs]
        c = counts(emb, texts)
        sample = random.Random(5).sample(texts, min(args.sample, len(texts)))
        cpu = model_cpu(emb, sample, args.rounds)
        print(f"| {corpus.name} | {c['memories']} | {c['chars']:.0f} | {c['tokens']:.0f} ({c['tokens_p95']}) | "
              f"{100 * c['over_window']:.1f}% | {c['peer_tokens_run']:.0f} | {c['knotwork_passages']:.2f}, "
              f"{c['knotwork_tokens_run']:.0f} | {' / '.join(f'{x:.1f}' for x in cpu['knotwork'])} | "
              f"{' / '.join(f'{x:.1f}' for x in cpu['peer'])} |", flush=True)
    print(f"\nsample of {args.sample} memories per set, {args.rounds} rounds; onnxruntime threads {emb.threads}; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
