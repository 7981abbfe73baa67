"""Input rules for the knowledge graph, in the style of ``domain.rules``.

Each function returns the clean value or raises ``InvalidInput`` naming the
field (``entities[2].name``) and the problem, so a bad call writes nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from knotwork.domain import rules
from knotwork.domain.temporal import parse_time
from knotwork.errors import InvalidInput, quote
from knotwork.knowledge.models import EntityDraft, FactDraft
from knotwork.limits import ENTITY_NAME_CHARS as MAX_NAME
from knotwork.limits import MAX_GRAPH_ITEMS as MAX_ITEMS
from knotwork.limits import SUMMARY_CHARS as MAX_SUMMARY
_PREDICATE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_TYPE = re.compile(r"[a-z][a-z0-9_-]{0,39}")
ENTITY_FIELDS = frozenset({"name", "type", "summary"})
FACT_FIELDS = frozenset({"subject", "predicate", "object", "valid_at", "invalid_at", "confidence"})


def name(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected text, got {type(value).__name__}")
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if not text:
        raise InvalidInput(field, "is empty; an entity needs a name")
    if len(text) > MAX_NAME:
        raise InvalidInput(field, f"is {len(text):,} characters; the limit is {MAX_NAME:,} characters")
    rules.utf8(text, field)
    return text


def entity_type(value: Any, field: str) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected text, got {type(value).__name__}")
    text = value.strip().lower().replace(" ", "_")
    if not _TYPE.fullmatch(text):
        raise InvalidInput(field, f"{quote(value)} is not a valid type: use 1-40 letters, digits, _ or - starting with a letter")
    return text


def predicate(value: Any, field: str) -> str:
    """A predicate in snake case: ``"Lives in"`` becomes ``lives_in``."""
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected text, got {type(value).__name__}")
    text = re.sub(r"[\s-]+", "_", value.strip().lower())
    if not _PREDICATE.fullmatch(text):
        raise InvalidInput(field, f"{quote(value)} is not a valid predicate: use 1-64 letters, digits and spaces or _, starting with a letter")
    return text


def summary(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected text, got {type(value).__name__}")
    text = " ".join(value.split())
    if len(text) > MAX_SUMMARY:
        raise InvalidInput(field, f"is {len(text):,} characters; the limit is {MAX_SUMMARY:,} characters")
    rules.utf8(text, field)
    return text or None


def confidence(value: Any, field: str, default: float | None = 1.0) -> float | None:
    """A confidence in [0, 1] (``default`` when not given)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise InvalidInput(field, f"expected a number from 0 to 1, got {value!r}")
    if not 0 <= value <= 1:
        raise InvalidInput(field, f"must be from 0 to 1, got {value!r}")
    return float(value)


def _items(value: Any, field: str, allowed: frozenset[str]) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InvalidInput(field, f"expected a list of objects, got {type(value).__name__}")
    if len(value) > MAX_ITEMS:
        raise InvalidInput(field, f"{len(value):,} given; at most {MAX_ITEMS} items")
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise InvalidInput(f"{field}[{index}]", f"expected an object, got {type(item).__name__}")
        unknown = set(item) - allowed
        if unknown:
            raise InvalidInput(f"{field}[{index}]", f"unknown field(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(allowed))}")
    return list(value)


def entities(value: Any, field: str = "entities") -> list[EntityDraft]:
    """``[{name, type?, summary?}]`` (a bare string is a name)."""
    if isinstance(value, list | tuple):
        value = [{"name": v} if isinstance(v, str) else v for v in value]
    out = []
    for index, item in enumerate(_items(value, field, ENTITY_FIELDS)):
        at = f"{field}[{index}]"
        if "name" not in item:
            raise InvalidInput(f"{at}.name", "is missing")
        out.append(
            EntityDraft(
                name(item["name"], f"{at}.name"),
                entity_type(item.get("type"), f"{at}.type"),
                summary(item.get("summary"), f"{at}.summary"),
            )
        )
    return out


def facts(value: Any, field: str = "facts") -> list[FactDraft]:
    """``[{subject, predicate, object, valid_at?, invalid_at?, confidence?}]`` (confidence in [0, 1], default 1.0)."""
    out = []
    for index, item in enumerate(_items(value, field, FACT_FIELDS)):
        at = f"{field}[{index}]"
        for key in ("subject", "predicate", "object"):
            if key not in item:
                raise InvalidInput(f"{at}.{key}", "is missing")
        valid = parse_time(item["valid_at"], f"{at}.valid_at") if item.get("valid_at") is not None else None
        invalid = parse_time(item["invalid_at"], f"{at}.invalid_at") if item.get("invalid_at") is not None else None
        if valid and invalid and invalid <= valid:
            raise InvalidInput(f"{at}.invalid_at", "must be later than valid_at")
        subject, obj = name(item["subject"], f"{at}.subject"), name(item["object"], f"{at}.object")
        if subject.casefold() == obj.casefold():
            raise InvalidInput(f"{at}.object", "a fact needs two different entities")
        sure = confidence(item.get("confidence"), f"{at}.confidence")
        out.append(FactDraft(subject, predicate(item["predicate"], f"{at}.predicate"), obj, valid, invalid, confidence=sure))
    return out
