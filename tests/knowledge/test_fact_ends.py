"""What may end a fact: kind checks on the parse (knowledge/ends.py), the readings of a change, and
the per-rule accounting of bench/extraction.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from knotwork.knowledge.extract import extract
from knotwork.knowledge.models import FactDraft
from knotwork.services.enrichment import GraphInput, encode

BENCH = Path(__file__).resolve().parents[2] / "bench" / "extraction.py"


def facts(text: str) -> set[tuple[str, str, str, bool, str | None]]:
    return {(f.subject, f.predicate, f.object, f.past, f.replaces) for f in extract(text).facts}


def ends(text: str) -> set[str]:
    return {x for f in extract(text).facts for x in (f.subject, f.object)}


def test_a_time_span_ends_no_fact() -> None:
    found = facts("I worked at Amazon for three years.")
    assert ("User", "works_at", "Amazon", True, None) in found
    assert not any("year" in x.lower() for x in ends("I worked at Amazon for three years."))


@pytest.mark.parametrize(
    ("text", "kind_word"),
    [
        ("Terraform state lives in an S3 bucket.", "bucket"),   # a kind after "an"
        ("Logs are shipped to Loki via Promtail.", "Logs"),      # a bare plural subject
        ("We don't use ORMs in this project.", "ORMs"),          # a plural abbreviation
    ],
)
def test_a_kind_of_thing_ends_no_fact(text: str, kind_word: str) -> None:
    assert not any(kind_word.lower() in x.lower() for x in ends(text))
    assert kind_word not in {e.name for e in extract(text).entities}


def test_a_kind_may_still_be_a_taste_or_a_role() -> None:
    assert ("User", "likes", "dogs", False, None) in facts("I love dogs.")
    assert any(f[1] == "works_as" and "nurse" in f[2] for f in facts("My sister Ana works as a nurse."))


def test_a_name_the_parse_ran_over_and_is_refused() -> None:
    assert not any(" and " in x for x in ends("The search API supports OAuth and API keys."))


def test_a_known_name_that_modifies_a_definite_name_is_not_an_entity_alone() -> None:
    assert "Kafka" not in {e.name for e in extract("The Kafka cluster is managed by Confluent.").entities}
    assert "Instagram" in {e.name for e in extract("My Instagram account has 1,200 followers.").entities}
    text = "Jonas owns the Grafana dashboards."
    assert "Grafana" not in {e.name for e in extract(text).entities}
    assert ("Jonas", "owns", "Grafana dashboards", False, None) in facts(text)
    # after "a", the known name is what the sentence names
    assert "Stripe" in {e.name for e in extract("Staging uses a separate Stripe account.").entities}


def test_a_bare_abbreviation_cut_from_its_name_is_no_subject() -> None:
    assert not any(f[0] == "API" for f in facts("The payments API runs on AWS."))
    assert ("config loader", "supports", "YAML", False, None) in facts("The config loader supports YAML and TOML.")


def test_two_versions_of_one_name_are_a_version_change() -> None:
    found = facts("We went from MySQL 5.7 to MySQL 8 during the upgrade.")
    assert found == {("MySQL", "uses_version", "8", False, "5.7")}


def test_a_change_between_hosting_platforms_is_where_it_runs() -> None:
    assert facts("We ditched Heroku for Render.") == {("Team", "runs_on", "Render", False, "Heroku")}
    assert facts("We moved from Redis to Valkey.") == {("Team", "uses", "Valkey", False, "Redis")}


def test_a_change_moves_to_its_object_only_when_the_object_is_a_system() -> None:
    assert facts("We migrated the logs from Elasticsearch to Loki.") == {("Team", "uses", "Loki", False, "Elasticsearch")}
    assert facts("We migrated the billing service from MySQL to PostgreSQL.") == {
        ("billing service", "uses", "PostgreSQL", False, "MySQL")}


def test_a_replacement_belongs_to_a_named_place_only() -> None:
    assert facts("We replaced Moment with Luxon across the dashboard.") == {("dashboard", "uses", "Luxon", False, "Moment")}
    assert facts("We replaced black with ruff for formatting.") == {("Team", "uses", "ruff", False, "black")}


def test_who_sets_a_tool_up_is_not_its_user() -> None:
    assert facts("Björn set up Sentry for the checkout flow.") == {("checkout flow", "uses", "Sentry", False, None)}
    assert facts("Björn set up Sentry.") == set()


def test_a_version_tail_leaves_the_name() -> None:
    assert facts("The API server depends on `pydantic` v2.") == {("API server", "depends_on", "pydantic", False, None)}


def test_every_offline_fact_names_its_rule() -> None:
    ex = extract("We moved from Redis to Valkey. Priya maintains the billing service. I'm allergic to peanuts.")
    assert ex.facts and all(f.rule.split(":")[0] in ("parse", "rules") and len(f.rule) > 6 for f in ex.facts)
    assert {f.rule for f in ex.facts} >= {"parse:change-from-to", "parse:dobj:maintain"}


def test_the_rule_tag_is_not_queued_for_a_callers_fact() -> None:
    text = encode(GraphInput([], [FactDraft("a", "uses", "b")]))
    assert text is not None and '"rule"' not in text and '"predicate": "uses"' in text


def _bench():
    spec = importlib.util.spec_from_file_location("extraction_bench_rules", BENCH)
    bench = importlib.util.module_from_spec(spec)
    assert spec.loader
    sys.modules[spec.name] = bench
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.modules.pop(spec.name, None)
    return bench


def test_by_rule_counts_what_each_rule_stored_and_how_much_the_labels_hold() -> None:
    bench = _bench()
    (ents, found, rules), = bench.predict(["We moved from Redis to Valkey."], True)
    assert rules == {("team", "uses", "valkey", "current"): "parse:change-from-to",
                     ("team", "uses", "redis", "retired"): "parse:change-from-to/old"}
    tally: dict[str, list[int]] = {}
    bench.tally_rules(tally, found, rules, {("team", "uses", "valkey", "current")})
    assert tally["parse:change-from-to"] == [1, 1]
    assert tally["parse:change-from-to/old"] == [1, 0]
    assert tally["parse:change-from-to *"] == [2, 1]
    assert tally["= uses"] == [2, 1]


def test_a_tool_change_without_a_subject_is_nobodys() -> None:
    assert facts("Switched the CI from Travis to GitHub Actions.") == set()
    assert facts("We switched the CI from Travis to GitHub Actions.") == {
        ("Team", "uses", "GitHub Actions", False, "Travis")}
    assert ("User", "lives_in", "Lyon", False, "Paris") in facts("Moved from Paris to Lyon last week!")


def test_managed_by_says_no_owner() -> None:
    assert facts("Our Kafka cluster is managed by Confluent.") == set()
    assert facts("The billing service is maintained by Priya.") == {("Priya", "owns", "billing service", False, None)}


def test_a_code_like_modifier_stays_in_the_name() -> None:
    assert facts("The e2e suite uses Playwright, not Cypress.") == {("e2e suite", "uses", "Playwright", False, None)}


@pytest.mark.parametrize("text", ["We don't store PII in Redis anymore.", "We pinned requests to 2.31 because of a TLS bug.",
                                  "We're considering Kubernetes but for now everything runs on a single VM."])
def test_a_generic_abbreviation_is_no_entity(text: str) -> None:
    assert not {"PII", "TLS", "VM"} & {e.name for e in extract(text).entities}


def test_a_code_identifier_sheds_the_kind_word_after_it() -> None:
    assert facts("The image resizer calls the `thumbor` API.") == {("image resizer", "calls", "thumbor", False, None)}
