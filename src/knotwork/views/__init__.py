"""Adapter-only views: the floor between the adapters and the facade.

Each holds the :class:`~knotwork.service.Knotwork` facade itself and serves only the adapters (REST, MCP, the
CLI, the web UI): ``access.py``, the service as one caller may use it (a token's or ``serve -w``'s scope);
``browse.py``, the read-only overviews the web UI draws; ``elsewhere.py``, misses that name where to look.
Nothing below the adapters imports this package (``tests/test_layers.py``).
"""
