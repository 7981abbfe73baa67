"""The PostgreSQL store's thread reads (store/threads.py): a row's thread is ``metadata::jsonb ->> 'thread'``.

A mixin of ``PostgresStore``: it uses the store's ``_rows_by_ids``, which binds the list of ids
to ``%s``.
"""

from __future__ import annotations

from knotwork.store import threads


class ThreadStore(threads.ThreadStore):
    _thread_sql = threads.ThreadSQL(thread="{t}.metadata::jsonb ->> 'thread'", id_in="= ANY(%s)")
