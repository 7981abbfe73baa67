"""A fitted linear model over named features, with its Platt calibration: the run-time half of the learned
scorers (the fact scorer, knowledge/scorer.py; the sentence gate, knowledge/gate.py; the supersession pair
scorer, hygiene/pair_scorer.py).

Each ships as JSON (``bias``, ``weights`` by feature name, ``calibration.platt`` = [slope, intercept]) written
by its training script under bench/; only NumPy reads it at run time. A feature is present or absent: the
logit is the bias plus the weights of the distinct features present.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Self

import numpy as np


def bucket(value: int, edges: Sequence[int]) -> str:
    """A count as a present-or-absent feature's value: ``<=e`` for the first edge it does not pass, else ``>last``."""
    for e in edges:
        if value <= e:
            return f"<={e}"
    return f">{edges[-1]}"


class CalibratedLogistic:
    """Weights, a bias and the Platt map from the raw logit to a probability; ``name`` names the file in errors."""

    def __init__(self, data: dict[str, Any], name: str) -> None:
        self.bias = float(data["bias"])
        self.weights: dict[str, float] = {k: float(v) for k, v in data["weights"].items()}
        platt = data["calibration"].get("platt")
        if not (isinstance(platt, list) and len(platt) == 2 and platt[0] > 0):
            raise ValueError(f"{name}: calibration.platt must be [slope > 0, intercept]")
        self.slope, self.intercept = float(platt[0]), float(platt[1])

    @classmethod
    def read(cls, path: Path) -> Self | None:
        """The model in ``path`` (an instance of ``cls``), or None when there is no such file."""
        if not path.exists():
            return None
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def logit(self, feats: Iterable[str]) -> float:
        return self.bias + sum(self.weights.get(k, 0.0) for k in set(feats))

    def probability(self, feats: Iterable[str]) -> float:
        """The calibrated probability that a case with these features is a positive one, in [0, 1]."""
        z = self.slope * self.logit(feats) + self.intercept
        return float(np.clip(1.0 / (1.0 + np.exp(-z)), 0.0, 1.0))
