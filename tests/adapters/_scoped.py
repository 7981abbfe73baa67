"""What the access tests of every surface share: a store with memories, links and a knowledge graph in two
workspaces (shop, lab) and the global scope, tokens bound to workspaces, and what shop holds that no caller
limited to lab may ever be shown.

The memories (and the entities) of shop and lab are added in one batch, so their ids share their first 8
characters (a ~1 s time bucket, as any memories written within the same second): an 8-character prefix is
then an ambiguous short id across both workspaces.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import knotwork
from knotwork import Settings
from knotwork.adapters.credentials import TokenBook

OWNER = "owner-token"
FAST = {"KNOTWORK_EMBEDDER": "none"}
SHOP_TEXT = "The shop deploys with blue-green releases"
LAB_TEXT = "The lab deploys on Fridays"
GLOBAL_TEXT = "Every service deploys from main"


@dataclass
class Store:
    """Ids of what :func:`seed` made; ``shop_*`` is what a caller limited to lab must never see."""

    shop: str
    lab: str
    glob: str
    shop_link: str
    lab_link: str
    shop_entity: str
    lab_entity: str
    shop_fact: str
    lab_fact: str
    shop_bucket: list[str]
    lab_bucket: list[str]
    tokens: dict[str, str] = field(default_factory=dict)
    book: TokenBook | None = None

    @property
    def prefix(self) -> str:
        """An 8-character short id that names memories of shop and of lab."""
        return self.shop[:8]

    @property
    def entity_prefix(self) -> str:
        return self.shop_entity[:8]

    def secrets(self) -> list[str]:
        """Strings of shop's that may appear in no answer to a caller limited to lab (ids by their short forms too)."""
        ids = [self.shop, self.shop_link, self.shop_entity, self.shop_fact, *self.shop_bucket]
        return ["blue-green", "Shopfront", "Bluegreen", "bucket note 0 of shop", *ids, *(i[-10:] for i in ids)]

    def leaked(self, answers: list[str] | list[tuple[Any, str]]) -> list[str]:
        """The secrets any of ``answers`` shows: texts, or (what was sent, what came back) pairs, where a
        secret the request itself named (an error quoting the id asked for) does not count."""
        out = []
        for answer in answers:
            sent, text = (json.dumps(answer[0]), answer[1]) if isinstance(answer, tuple) else ("", answer)
            out += [s for s in self.secrets() if s.lower() in text.lower() and s.lower() not in sent.lower()]
        return out


def _batch(attempt: int) -> list[dict[str, Any]]:
    return [
        {"content": f"{SHOP_TEXT}.", "workspace": "shop",
         "facts": [{"subject": "Shopfront", "predicate": "deploys with", "object": "Bluegreen"}]},
        {"content": f"{LAB_TEXT}.", "workspace": "lab",
         "facts": [{"subject": "Labrunner", "predicate": "deploys on", "object": "Fridays"}]},
        *({"content": f"bucket note {i} of {ws}, take {attempt}", "workspace": ws} for ws in ("shop", "lab") for i in range(3)),
    ]


def seed(db: Path, tokens_file: Path) -> Store:
    """The store on ``db`` and, in ``tokens_file``: lab-bot (lab), shop-reader (shop, read only), shop-bot
    (shop and @global) and everyone (*, read only)."""
    with knotwork.open(db, settings=Settings(embedder="none")) as mem:
        glob = mem.add(GLOBAL_TEXT)
        for attempt in range(5):
            made = mem.add_many(_batch(attempt))
            entities = [mem.entity(name, workspace=ws).id for name, ws in (("Shopfront", "shop"), ("Labrunner", "lab"))]
            if len({m.id[:8] for m in made}) == 1 and len({e[:8] for e in entities}) == 1:
                break
            for m in made:  # the batch straddled a second: forget it (and its graph), then again
                mem.delete(m.id)
        else:
            raise AssertionError("five batches in a row straddled a second")
        shop, lab = made[0], made[1]
        store = Store(
            shop=shop.id, lab=lab.id, glob=glob.id,
            shop_link=mem.link(shop.id, glob.id, "references").id,
            lab_link=mem.link(lab.id, glob.id, "relates_to").id,
            shop_entity=entities[0], lab_entity=entities[1],
            shop_fact=mem.entity_facts("Shopfront", workspace="shop")[0].id,
            lab_fact=mem.entity_facts("Labrunner", workspace="lab")[0].id,
            shop_bucket=[m.id for m in made[2:5]], lab_bucket=[m.id for m in made[5:]],
        )
    book = TokenBook(tokens_file)
    store.book = book
    store.tokens = {
        "lab": book.create("lab-bot", ["lab"]),
        "shop-read": book.create("shop-reader", ["shop"], write=False),
        "shop": book.create("shop-bot", ["shop", "@global"]),
        "reader": book.create("everyone", ["*"], write=False),
    }
    return store


def body(answer: Any) -> str:
    """An HTTP answer's body as text."""
    return answer.text if hasattr(answer, "text") else json.dumps(answer)
