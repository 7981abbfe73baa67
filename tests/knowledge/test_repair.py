"""Two misreadings of the small English pipeline mended before the readings (knowledge/repair.py): a subject read
as a compound of its verb ("The GraphQL gateway runs on Cloud Run") and a verb read as a plural noun ("The
checkout service talks to Adyen"); and neighbours the parse reads well, which stay as they were."""

from __future__ import annotations

import pytest

from knotwork.knowledge.nlp import pipeline
from knotwork.knowledge.repair import mend

from tests.knowledge._proposed import needs_parser, proposed as _proposed


@needs_parser
@pytest.mark.parametrize("text, fact", [
    ("The GraphQL gateway runs on Cloud Run.", ("GraphQL gateway", "runs_on", "Cloud Run", False)),
    ("The checkout service talks to Adyen, Klarna and PayPal.", ("checkout service", "uses", "PayPal", False)),
    ("The auth service no longer talks to LDAP; it uses Keycloak now.", ("auth service", "uses", "LDAP", True)),
    # "to Render", "to bare React Native" read as infinitives: the new value of a change
    ("The mobile backend was moved from Heroku to Render.", ("mobile backend", "runs_on", "Render", False)),
    ("We switched the mobile app from Expo to bare React Native in March.",
     ("mobile app", "uses", "React Native", False)),
])
def test_a_mended_parse_reads_its_fact(text: str, fact: tuple) -> None:
    assert fact in _proposed(text)


@needs_parser
@pytest.mark.parametrize("text", [
    "The team talks were recorded on Friday.",  # "talks" is a noun here: it has no subject and no "talk to"
    "Our weekly runs on the beach are fun.",
    "The API runs on Fly.io.",
    "I moved from Boston to pursue a PhD.",  # a real infinitive after "from A"
    "We moved from Heroku to save money.",
])
def test_a_parse_read_well_stays_as_it_was(text: str) -> None:
    nlp = pipeline()
    doc = nlp(text)
    before = [(t.pos_, t.tag_, t.dep_) for t in doc]
    mend(doc)
    assert [(t.pos_, t.tag_, t.dep_) for t in doc] == before
