"""Composition root: settings in, a ready Knotwork out. The only place that picks a backend."""

from __future__ import annotations

from pathlib import Path

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from knotwork.config import Settings
from knotwork.errors import BackendUnavailable, InvalidInput
from knotwork.service import Knotwork
from knotwork.store.protocol import Store, Tracer

if TYPE_CHECKING:
    from knotwork.embed.protocol import Embedder

MODEL_KEY = "embedding_model"


@functools.lru_cache(maxsize=4)
def embedder_for(spec: str, threads: int | None = None) -> Embedder | None:
    """One embedder per spec (and thread count) per process: many stores (and tests) share the loaded model."""
    if spec == "none":
        return None
    from knotwork.embed import make_embedder

    try:
        return make_embedder(spec, threads=threads)
    except ValueError as exc:
        raise InvalidInput("embedder", str(exc)) from None


def check_model(store, embedder: Embedder | None, *, adopt: bool = False) -> None:
    """Refuse to mix vectors of two models: the store records which model made its vectors."""
    if embedder is None:
        return
    recorded = store.get_meta(MODEL_KEY)
    if recorded is None or adopt:
        store.set_meta(MODEL_KEY, embedder.model_id)
    elif recorded != embedder.model_id:
        raise BackendUnavailable(
            f"{store.location}: its vectors were made by {recorded!r}, not {embedder.model_id!r}; "
            "run `knotwork reembed` to rebuild them with the configured model"
        )


def _target(path_or_url: str | Path | None, settings: Settings) -> tuple[str, str]:
    """(scheme, what follows it) of the store a call names, or of the configured one; a bare path is sqlite."""
    target = str(path_or_url) if path_or_url is not None else settings.database()
    scheme, sep, rest = target.partition("://")
    return (scheme, rest) if sep else ("sqlite", target)


POSTGRES_SCHEMES = ("postgresql", "postgres")


def open_store(target: str, settings: Settings, tracer: Tracer | None = None) -> Store:
    """The store a path or URL names: a SQLite file (path, ``sqlite:///path``, ``:memory:``) or PostgreSQL (``postgresql://``)."""
    scheme, rest = _target(target, settings)
    if scheme in POSTGRES_SCHEMES:
        try:
            from knotwork.store.postgres import PostgresStore
        except ImportError as exc:  # the driver is an optional dependency: pip install 'knotwork[postgres]'
            raise BackendUnavailable(f"PostgreSQL support is not installed ({exc}); install knotwork[postgres]") from None
        return PostgresStore(target, busy_timeout_ms=settings.busy_timeout_ms, pool_size=settings.pool_size, tracer=tracer)
    if scheme != "sqlite":
        raise InvalidInput("database", f"unsupported URL scheme {scheme!r}; use a file path, sqlite:///path or postgresql://...")
    from knotwork.store.sqlite import SQLiteStore

    return SQLiteStore(rest, busy_timeout_ms=settings.busy_timeout_ms, tracer=tracer, synchronous=settings.synchronous)


def open(
    path_or_url: str | Path | None = None,
    *,
    settings: Settings | None = None,
    tracer: Tracer | None = None,
    reembed: bool = False,
) -> Knotwork:
    """Open (creating if needed) a knotwork store.

    ``path_or_url``: a file path, ``sqlite:///path``, ``:memory:`` or
    ``postgresql://user:password@host/dbname`` (PostgreSQL 15+ with pgvector); by
    default ``$KNOTWORK_DB`` or ``$KNOTWORK_HOME/knotwork.db`` (``~/.knotwork``).
    ``tracer`` is called with every SQL statement and its parameters.
    ``reembed=True`` opens a store whose vectors came from another model, so
    that :meth:`Knotwork.reembed` can rebuild them.
    """
    settings = settings or Settings()
    target = str(path_or_url) if path_or_url is not None else settings.database()
    store = open_store(target, settings, tracer)
    try:
        embedder = embedder_for(settings.embedder, settings.embed_threads)
        if not reembed:
            check_model(store, embedder)
    except BaseException:
        store.close()
        raise
    return Knotwork(store, settings, embedder)


def restore(
    backup: str | Path,
    path_or_url: str | Path | None = None,
    *,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Copy a backup (``Knotwork.backup`` / ``knotwork backup``) over a store's database; the store's path.

    The target is the store :func:`open` would open. Stop the processes that hold it open first: their
    in-memory indexes follow the database forward, not back in time. The backup is checked first (a knotwork
    database this version can open, intact); nothing is written when it is not.
    """
    from knotwork.store.sqlite import backup as sqlite_backup

    scheme, target = _target(path_or_url, settings or Settings())
    if scheme != "sqlite":
        raise InvalidInput("database", f"restore is for SQLite stores; for {scheme!r} use that server's own tools")
    if target == ":memory:":
        raise InvalidInput("database", "an in-memory store cannot be restored into")
    path = Path(target).expanduser()
    sqlite_backup.restore(Path(backup).expanduser(), path, progress)
    return path
