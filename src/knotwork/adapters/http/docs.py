"""The API's docs, offline: Swagger UI at ``/docs`` and ReDoc at ``/redoc``, their scripts and styles served from
the ``fastapi-offline`` package under :data:`ASSETS` (FastAPI's own pages load them from a CDN, and ReDoc's
fonts from another host, so they are blank on a machine without a network).

Each page carries a Content-Security-Policy that lets it reach this server alone: what the scripts would
still fetch from elsewhere (ReDoc's "powered by" logo) is never asked for.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

#: Where the assets are served; the Access middleware lets them through without a token (they hold no data).
ASSETS = "/ui/docs-assets"
ASSET_DIR = Path(fastapi_offline.__file__).resolve().parent / "static"
FAVICON = "/ui/static/favicon.svg"
PACKAGE_FAVICON = f"{ASSETS}/favicon.png"  # the docs' own, where the web UI's bundle is not built


def _favicon(root: str) -> str:
    from knotwork.adapters.http.routers import ui

    return f"{root}{FAVICON if ui.built() else PACKAGE_FAVICON}"
#: Scripts, styles, images, the spec and ReDoc's worker from this server, and nothing from anywhere else.
POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"
)
#: ReDoc's sidebar links to its maker with a logo from a CDN; the policy blocks the image, this hides the link.
REDOC_STYLE = "<style>a[href*='redocly.com']{display:none!important}</style>"

router = APIRouter(include_in_schema=False)


def _spec(request: Request) -> str:
    return f"{request.scope.get('root_path', '')}{request.app.openapi_url}"


def _offline(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = POLICY
    return page


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    root = request.scope.get("root_path", "")
    return _offline(
        get_swagger_ui_html(
            openapi_url=_spec(request),
            title=f"{request.app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=_favicon(root),
        )
    )


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    root = request.scope.get("root_path", "")
    page = get_redoc_html(
        openapi_url=_spec(request),
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
        redoc_favicon_url=_favicon(root),
        with_google_fonts=False,
    )
    html = page.body.decode().replace("</head>", f"{REDOC_STYLE}</head>", 1)
    return _offline(HTMLResponse(html))


def assets() -> StaticFiles:
    return StaticFiles(directory=ASSET_DIR)
