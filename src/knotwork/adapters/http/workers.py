"""``knotwork serve --workers N``: N server processes over one store.

SQLite in WAL mode lets many processes read at once and take turns writing,
and every in-memory index (BM25, vectors, links) follows other processes'
writes through the store's change logs, so N processes behave as one server
with N times the CPU for searches and embeddings. uvicorn starts and watches
the processes; each builds its app with :func:`app`, from the settings the
parent hands down in the environment. The parent keeps the once-per-server
work: the start-up check and the prune and extraction workers.
"""

from __future__ import annotations

import json
import os
from typing import Any

ENV = "KNOTWORK_SERVE_WORKER"  # JSON: what each worker process needs to build the app


def handed_down(db: str | None, workspace: str | None, tools: str, host: str) -> dict[str, str]:
    """The environment entry that tells a worker process what to serve."""
    return {ENV: json.dumps({"db": db, "workspace": workspace, "tools": tools, "host": host})}


def app() -> Any:
    """The app of one worker process (uvicorn calls this in each, as ``factory=True``)."""
    from knotwork.adapters.http import create_app
    from knotwork.adapters.mcp import build_server
    from knotwork.app import open as open_store
    from knotwork.config import Settings

    from knotwork.adapters.credentials import TokenBook
    from knotwork.adapters.http import heap
    from knotwork.views.access import of_workspace

    given = json.loads(os.environ[ENV])

    settings = Settings()
    heap.limit_arenas(settings.serve_malloc_arenas)
    heap.Trimmer(settings.serve_trim_interval).start()  # a daemon thread, for the process's life
    mem = open_store(given["db"], settings=settings)  # held for the process's life; closed when it exits
    return create_app(
        mem,
        default_workspace=given["workspace"],
        api_token=settings.api_token,
        mcp_server=build_server(mem, default_workspace=given["workspace"], tools=given["tools"],
                                scope=of_workspace(given["workspace"])),
        host=given["host"],
        tokens=TokenBook(settings.tokens_path()),
        limit_to_default=True,
    )
