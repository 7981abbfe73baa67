"""Moving data: export every memory as JSONL, import an export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from knotwork.adapters.http.common import Format, Mem, Reply
from knotwork.domain import rules
from knotwork.errors import InvalidInput
from knotwork.limits import MAX_IMPORT_RECORDS

router = APIRouter(tags=["data"])


@router.get(
    "/export",
    summary="Every memory with its history and links, as JSON lines",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}, "description": "JSON lines"}},
)
def export(mem: Mem) -> StreamingResponse:
    records = mem.export()  # a caller who may not export is refused here, before the answer starts

    def lines() -> Iterator[str]:
        for record in records:
            yield json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")


def _json(text: str, where: str) -> Any:
    return rules.export_json(text, where)


def parse_records(raw: bytes) -> list[Any]:
    """An export body: JSON lines, or one JSON array of records; at most ``MAX_IMPORT_RECORDS``."""
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput("body", f"is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if body.lstrip().startswith("["):
        records = _json(body, "body")
        if not isinstance(records, list):
            raise InvalidInput("body", "expected a JSON array of records, or JSON lines")
    else:
        lines = [(number, line) for number, line in enumerate(body.splitlines(), 1) if line.strip()]
        if len(lines) > MAX_IMPORT_RECORDS:
            raise InvalidInput("body", f"{len(lines):,} records; at most {MAX_IMPORT_RECORDS:,} per request (import the rest in more)")
        records = [_json(line, f"line {number}") for number, line in lines]
    if len(records) > MAX_IMPORT_RECORDS:
        raise InvalidInput("body", f"{len(records):,} records; at most {MAX_IMPORT_RECORDS:,} per request (import the rest in more)")
    return records


@router.post(
    "/import",
    summary="Load an export (JSON lines or a JSON array); all or nothing",
    openapi_extra={"requestBody": {"required": True, "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}},
)
async def import_(request: Request, mem: Mem, reply: Reply, format: Format = "json") -> Response:
    records = parse_records(await request.body())
    report = await run_in_threadpool(mem.import_records, records)
    return reply("import", report, format)


@router.post("/reembed", summary="Rebuild every vector with the configured embedder; answers how many memories were embedded")
def reembed(mem: Mem) -> JSONResponse:
    return JSONResponse({"embedded": mem.reembed()})
