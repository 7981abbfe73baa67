"""The SQLite store's thread reads (store/threads.py): a row's thread is ``json_extract(metadata, '$.thread')``.

A mixin of ``SQLiteStore`` (like ``HygieneStore``): it uses the store's ``_rows_by_ids``, whose
``{ids}`` stands for one batch's placeholders.
"""

from __future__ import annotations

from knotwork.store import threads


class ThreadStore(threads.ThreadStore):
    _thread_sql = threads.ThreadSQL(thread="json_extract({t}.metadata, '$.thread')", id_in="IN ({ids})")
