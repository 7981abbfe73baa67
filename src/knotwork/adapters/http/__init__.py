"""The REST API (FastAPI), and the one ASGI app ``knotwork serve`` runs: REST plus MCP at ``/mcp``."""

from knotwork.adapters.http.app import ROUTERS, create_app, is_loopback

__all__ = ["ROUTERS", "create_app", "is_loopback"]
