"""LRU cache of query vectors.

Agents ask the same questions again and again ("what does the user prefer
for ...?"); one embedding of a query costs milliseconds of CPU, a dictionary
lookup microseconds. Cached vectors are stored read-only and handed out as
read-only views, so no caller can change what the next caller gets (numpy
refuses to make a view of a read-only array writeable again).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy loads with the first vector: opening a store to read it needs none
    import numpy as np


class QueryCache:
    """A thread-safe LRU map from query text to its vector.

    ``size`` 0 turns caching off (every call computes).
    """

    def __init__(self, size: int = 1024) -> None:
        if size < 0:
            raise ValueError(f"query cache size must be >= 0, got {size}")
        self.size = size
        self.hits = 0
        self.misses = 0
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get_or_compute(self, text: str, compute: Callable[[str], np.ndarray]) -> np.ndarray:
        """The cached vector of ``text``, computing and storing it on a miss.

        The computation runs outside the lock: two threads missing on the
        same text both compute it, which is cheaper than serialising every
        query behind one slow model call.
        """
        with self._lock:
            hit = self._data.get(text)
            if hit is not None:
                self._data.move_to_end(text)
                self.hits += 1
                return hit.view()
            self.misses += 1
        import numpy as np

        vector = np.array(compute(text), dtype=np.float32, copy=True)
        vector.setflags(write=False)
        if self.size:
            with self._lock:
                self._data[text] = vector
                self._data.move_to_end(text)
                while len(self._data) > self.size:
                    self._data.popitem(last=False)
        return vector.view()

    def clear(self) -> None:
        """Forget every cached vector (the hit and miss counts stay)."""
        with self._lock:
            self._data.clear()
