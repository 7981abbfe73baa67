"""Search latency as this server answers it: the time from request to the end of the answer of each
``POST /search``, kept like recall's (the last 2000, for p50/p95 on the dashboard)."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knotwork.services.recall import Latencies

TIMED = ("POST", "/search")


class SearchTimer:
    def __init__(self, app: ASGIApp, latencies: Latencies) -> None:
        self.app = app
        self.latencies = latencies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope["method"], scope["path"]) != TIMED:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0

        async def timed_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body") and status == 200:
                self.latencies.add((time.perf_counter() - start) * 1000)

        await self.app(scope, receive, timed_send)
