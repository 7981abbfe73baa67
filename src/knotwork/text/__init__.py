"""Plain text that both the services and the renderers write: a memory's age (``ages.py``) and the lines of
ambient recall (``recall.py``). The recall service measures the very text it hands out, so these pure
functions live below both floors and import only ``domain/``: ``services/`` needs nothing from ``render/``."""
