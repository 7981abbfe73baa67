"""A real uvicorn server on a loopback port, serving the REST app over a real store, in a thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import uvicorn

from knotwork import Knotwork
from knotwork.adapters.http import create_app

from .conftest import HOST, free_port

STARTUP_DEADLINE_S = 30.0


@contextmanager
def serving(mem: Knotwork, **app_options: Any) -> Iterator[httpx2.Client]:
    """Serve ``create_app(mem, **app_options)`` until the block ends; yield a client bound to it."""
    app = create_app(mem, **app_options)
    for _ in range(3):  # a port picked by bind(0) may be taken before uvicorn binds it
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=port, log_level="warning", lifespan="on"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if server.started:
            break
        server.should_exit = True
        thread.join(10)
    else:
        raise RuntimeError("uvicorn did not start")
    try:
        with httpx2.Client(base_url=f"http://{HOST}:{port}", timeout=30) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(10)
