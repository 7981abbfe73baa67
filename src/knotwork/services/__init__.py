"""Services behind the Knotwork facade, one per concept.

They sit below the facade (``service.py``) and never name it, not even for a type hint: each is typed against
the narrow view of what it uses. What holds the facade itself and serves only the adapters (a caller's scope,
the web UI's overviews, misses that name where to look) is ``views/``, a floor above it.
"""
