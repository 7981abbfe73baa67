"""The knowledge graph's engines and records: entities and facts in time read from memories.

Offline extraction (``extract.py``, ``parse.py``), resolution of names to entities, facts and their validity,
communities, and the optional LLM extractor (``llm.py``); ``models.py`` holds the graph's records, which the
store keeps, so this package sits below ``store/`` and imports nothing of it.
"""
