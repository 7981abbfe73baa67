"""The numbered migrations of an engine, as both engines keep them: ``migrations/NNNN_name.sql`` in its package.

Each engine's ``migrate.py`` applies them its own way (SQLite under ``BEGIN IMMEDIATE``, PostgreSQL under an
advisory lock) and records them in the database they were applied to.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def found_in(package: str) -> list[Migration]:
    """The migrations in ``package``'s ``migrations`` folder, by number."""
    found = []
    for entry in (resources.files(package) / "migrations").iterdir():
        if entry.name.endswith(".sql"):
            number, _, rest = entry.name.partition("_")
            found.append(Migration(int(number), rest.removesuffix(".sql"), entry.read_text("utf-8")))
    return sorted(found, key=lambda m: m.version)
