"""The learned fact proposer: pairs of names the rules leave unrelated, read by per-class calibrated models."""

from __future__ import annotations

import importlib.util
import json
from functools import partial
from pathlib import Path

import pytest

from knotwork.errors import NotFound
from knotwork.knowledge import proposer, scorer
from knotwork.knowledge.extract import candidates, extract_many
from knotwork.knowledge.nlp import pipeline

from tests._bench import bench_module

needs_parser = pytest.mark.skipif(pipeline() is None, reason="the English pipeline is not installed")
needs_sklearn = pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                                   reason="scikit-learn (the bench extra) is not installed")
FLOOR = 0.6

#: dev-half sentences (bench/data/extraction_agents.txt, extraction_heldout.txt) whose labelled fact the rules'
#: stored facts miss, and the pair and class the proposer reads there
READS = [
    ("The worker uses Celery with RabbitMQ as the broker.", ("worker", "uses", "RabbitMQ")),
    ("I love Studio Ghibli films, especially Spirited Away.", ("User", "likes", "Spirited Away")),
]
#: sentences that state nothing (an instruction, a wish and a question, a condition)
STATES_NOTHING = [
    "Use `uv` for all dependency operations; do not invoke `pip` directly.",
    "I would love to see Dumbo! Can I see it this Saturday?",
    "If you change `ConfigToml`, run `just write-config-schema`.",
]


def _readings(text: str, model: proposer.Proposer) -> list:
    ((ex, doc),) = candidates([text])
    return proposer.readings(scorer.score(ex, text, doc), doc, FLOOR, model)


def _lowered(tmp_path: Path, threshold: float) -> proposer.Proposer:
    """The shipped model with another threshold (a file of the shipped format)."""
    data = json.loads(proposer.WEIGHTS.read_text(encoding="utf-8"))
    data["threshold"] = threshold
    path = tmp_path / "fact_proposer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    model = proposer.Proposer.read(path)
    assert model is not None
    return model


def test_the_shipped_weights_load_as_one_matrix() -> None:
    model = proposer.load()
    assert model is not None
    data = json.loads(proposer.WEIGHTS.read_text(encoding="utf-8"))
    assert len(model.labels) == len(data["classes"]) and model.matrix.shape == (len(model.vocab) + 1, len(model.labels))
    assert 0 < model.threshold <= 1 and (model.slope > 0).all()
    p = model.probabilities(["feature-no-class-weighs"])  # an unknown feature adds nothing: the bias alone
    assert p.shape == (len(model.labels),) and ((0 < p) & (p < 1)).all()
    known = sorted(model.vocab)[:3]
    batch = model.many([known, ["feature-no-class-weighs"], [], known[:1] * 2])  # one gather for many pairs
    assert batch.shape == (4, len(model.labels))
    assert (batch[0] == model.probabilities(known)).all() and (batch[1] == p).all() and (batch[2] == p).all()
    assert (batch[3] == model.probabilities(known[:1])).all() and (batch[0] != p).any()


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(version=2), "version must be 1"),
    (lambda d: d.update(classes={}), "classes must be a non-empty object"),
    (lambda d: d.update(threshold=0), "threshold must be in (0, 1]"),
    (lambda d: d["classes"].update({"Uses Now": next(iter(d["classes"].values()))}), "must be a predicate"),
    (lambda d: next(iter(d["classes"].values()))["calibration"].update(platt=[-1.0, 0.0]), "slope > 0"),
    (lambda d: next(iter(d["classes"].values())).update(weights=[1, 2]), "weights must be an object"),
])
def test_a_malformed_file_is_refused_with_what_is_wrong(tmp_path: Path, change, message: str) -> None:
    data = json.loads(proposer.WEIGHTS.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "fact_proposer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="fact_proposer.json") as err:
        proposer.Proposer.read(path)
    assert message in str(err.value)


def test_a_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "fact_proposer.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not JSON"):
        proposer.Proposer.read(path)
    assert proposer.Proposer.read(tmp_path / "absent.json") is None


@needs_parser
def test_it_reads_pairs_the_rules_miss_surer_than_sentences_that_state_nothing() -> None:
    model = proposer.load()
    sure = []
    for text, (s, p, o) in READS:
        found = {(f.subject, f.predicate, f.object): f for f in _readings(text, model)}
        assert (s, p, o) in found, (text, sorted(found))
        assert found[(s, p, o)].rule == f"learned:{p}" and not found[(s, p, o)].past
        sure.append(found[(s, p, o)].confidence)
    nothing = [f.confidence for text in STATES_NOTHING for f in _readings(text, model)]
    assert min(sure) > max(nothing, default=0.0), (sure, nothing)


@needs_parser
@pytest.mark.parametrize(("text", "subject", "obj", "ended"), [
    ("The billing service uses SendGrid.", "billing service", "SendGrid", False),
    ("The billing service no longer uses SendGrid.", "billing service", "SendGrid", True),
    ("We used to deploy with Capistrano.", "Team", "Capistrano", True),
    ("The scheduler no longer depends on cron; it uses Temporal.", "scheduler", "Temporal", False),
    ("The scheduler no longer depends on cron; it uses Temporal.", "scheduler", "cron", True),
    ("I moved out of my flat in Hackney.", "User", "Hackney", True),
    ("I moved to Toronto in 2018 and to Vancouver last year.", "User", "Vancouver", False),
    ("We migrated from Heroku to Fly.io in June.", "Team", "Heroku", True),
    ("We migrated from Heroku to Fly.io in June.", "Team", "Fly.io", False),
])
def test_a_fact_is_over_when_the_verb_nearest_its_object_says_so(text: str, subject: str, obj: str,
                                                                  ended: bool) -> None:
    ((_, doc),) = candidates([text])
    from knotwork.knowledge.extract import _spans

    found = {m.name: m for sent in doc.sents for m in proposer.mentions(sent, _spans(sent.text))}
    assert {subject, obj} <= set(found), sorted(found)
    assert proposer.over(found[subject], found[obj]) is ended


@needs_parser
@pytest.mark.parametrize(("text", "said", "cut"), [
    ("uv is a comprehensive Python toolchain.", "comprehensive Python toolchain", "toolchain"),
    ("Biome is a Rust-based monorepo.", "Rust-based monorepo", "monorepo"),
    ("It is a home automation application.", "home automation application", ""),
])
def test_a_kind_is_named_by_the_guides_extent_and_a_subject_by_the_parse(text: str, said: str, cut: str) -> None:
    """The labels name a kind by its head noun and the common nouns compounded before it; the parse's phrase keeps
    the modifiers, and stays a subject's name ("the e2e suite")."""
    from knotwork.knowledge.extract import _spans

    ((_, doc),) = candidates([text])
    found = {m.name: m for sent in doc.sents for m in proposer.mentions(sent, _spans(sent.text))}
    assert said in found, sorted(found)
    assert found[said].cut == cut
    assert proposer.object_name(found[said], "is_a") == (cut or said)
    assert proposer.object_name(found[said], "uses") == said


@needs_parser
def test_it_proposes_nothing_for_an_object_the_rules_give_that_predicate_already() -> None:
    """"The e2e suite uses Playwright": the rules store it; "suite uses Playwright" (the cut name) is not read too."""
    text = "The e2e suite uses Playwright."
    ((ex, doc),) = candidates([text])
    ex = scorer.score(ex, text, doc)
    assert ("e2e suite", "uses", "Playwright") in {(f.subject, f.predicate, f.object) for f in ex.facts
                                                   if f.confidence >= FLOOR}
    assert not [f for f in proposer.readings(ex, doc, FLOOR, proposer.load()) if f.object == "Playwright"]


@needs_parser
def test_the_trainer_meets_a_labelled_end_by_its_head_token() -> None:
    """A label cut another way than the mention ("toolchain" against "a comprehensive Python toolchain") still
    names the pair, so the pair is not taught as stating nothing."""
    train = bench_module("train_fact_proposer.py", "train_fact_proposer")
    ((_, doc),) = candidates(["uv is a comprehensive Python toolchain for packages."])
    carried = train.heads(doc, {"toolchain", "pythontoolchain", "uv", "absent"})
    by_text = {doc[i].text: ends for i, ends in carried.items()}
    assert by_text == {"toolchain": {"toolchain", "pythontoolchain"}, "uv": {"uv"}}


@needs_parser
def test_its_facts_join_the_extraction_only_at_its_threshold(tmp_path: Path) -> None:
    text, (s, p, o) = READS[0]
    ((ex, doc),) = candidates([text])
    ex = scorer.score(ex, text, doc)
    ruled = {(f.subject, f.predicate, f.object) for f in ex.facts}
    assert (s, p, o) not in ruled
    reading = next(f for f in _readings(text, proposer.load()) if (f.subject, f.predicate, f.object) == (s, p, o))
    above = proposer.propose(ex, doc, FLOOR, _lowered(tmp_path, reading.confidence))
    added = [f for f in above.facts if f.rule and f.rule.startswith("learned:")]
    assert [(f.subject, f.predicate, f.object, f.confidence) for f in added] == [(s, p, o, reading.confidence)]
    assert ruled <= {(f.subject, f.predicate, f.object) for f in above.facts}  # the rules' facts stay
    ((ex2, doc2),) = candidates([text])
    below = proposer.propose(scorer.score(ex2, text, doc2), doc2, FLOOR,
                             _lowered(tmp_path, min(1.0, reading.confidence + 0.001)))
    assert not any(f.rule and f.rule.startswith("learned:") for f in below.facts)


@needs_parser
def test_off_the_extraction_is_the_rules_alone_and_on_it_adds_only_learned_facts() -> None:
    texts = [t for t, _ in READS] + STATES_NOTHING
    off = extract_many(texts)
    on = extract_many(texts, propose=partial(proposer.propose, floor=FLOOR))
    for a, b in zip(off, on):
        rules_off = sorted((f.subject, f.predicate, f.object, f.confidence) for f in a.facts)
        rules_on = sorted((f.subject, f.predicate, f.object, f.confidence) for f in b.facts
                          if not (f.rule or "").startswith("learned:"))
        assert [x for x in rules_off if x[3] >= FLOOR] == [x for x in rules_on if x[3] >= FLOOR]
        assert all(f.confidence >= proposer.load().threshold for f in b.facts if (f.rule or "").startswith("learned:"))


@needs_sklearn
@needs_parser
def test_the_trainer_rebuilds_a_file_byte_for_byte_and_check_tells_a_changed_one(tmp_path: Path) -> None:
    """On a small labelled set (two sources of dev text), so the test stays quick; ``bench/train_fact_proposer.py
    --check`` does the same on the full dev halves."""
    train = bench_module("train_fact_proposer.py", "train_fact_proposer")
    extraction = bench_module("extraction.py", "extraction")
    labelled = tmp_path / "small.txt"
    lines = ["## dev small"]
    for n, (text, facts) in enumerate(SMALL):
        lines += [f"# source: s{n}", text, "E:", "F: " + "; ".join(" | ".join(f) for f in facts)]
    labelled.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = extraction.load(labelled, True)
    sources = extraction.sources_of(labelled)
    groups = [-1 - int(sources[i.text][1:]) for i in items]

    def build() -> str:
        feats, labels, grp, owner, names, covered, its, read = train.examples([(labelled, True, True, items, groups)])
        old = train.MIN_POSITIVES
        train.MIN_POSITIVES = 1
        try:
            data, classes, oof = train.fit(feats, labels, grp, covered)
        finally:
            train.MIN_POSITIVES = old
        assert classes == ["uses"]
        threshold, _ = train.choose(oof, classes, owner, names, covered, its)
        return train.render(data, threshold, read)

    text = build()
    target = tmp_path / "fact_proposer.json"
    assert train.calibrated_fit.write_or_check(target, text, check=False) == 0
    assert proposer.Proposer.read(target) is not None  # what the trainer writes, the run time reads
    again = build()
    assert train.calibrated_fit.write_or_check(target, again, check=True) == 0  # the same bytes again
    target.write_text(text.replace('"threshold":', '"threshold": ', 1), encoding="utf-8")
    assert train.calibrated_fit.write_or_check(target, again, check=True) == 1


#: a small labelled set for the trainer's test: one source per item
SMALL = [
    ("The worker uses Celery with RabbitMQ as the broker.",
     [("worker", "uses", "Celery"), ("worker", "uses", "RabbitMQ")]),
    ("The checkout service uses Stripe for payments.", [("checkout service", "uses", "Stripe")]),
    ("The e2e suite uses Playwright.", [("e2e suite", "uses", "Playwright")]),
    ("The scheduler uses Temporal for retries.", [("scheduler", "uses", "Temporal")]),
    *((t, []) for t in STATES_NOTHING),
]


@needs_parser
@pytest.mark.parametrize(("text", "question", "subject", "predicate", "obj", "ended"), [
    ("The ingest job uses Airflow with Redis as the broker.",
     "Should the ingest job use Airflow with Redis as the broker?", "ingest job", "uses", "Redis", False),
    ("I moved out of my flat in Hackney.", "Should I move out of my flat in Hackney?", "User", "lives_in", "Hackney",
     True),
])
def test_a_fact_only_the_proposer_reads_is_stored_and_its_question_stores_nothing(
        target: str, text: str, question: str, subject: str, predicate: str, obj: str, ended: bool) -> None:
    """With the proposer on, a memory's fact that no rule reads is stored from it (over when the sentence says it
    ended); the same words asked as a question store no fact at all."""
    import knotwork
    from knotwork import Settings

    assert not Settings().kg_proposer  # off by default: it costs more CPU per read-in than it adds facts
    with knotwork.open(target, settings=Settings(embedder="none", kg_proposer=True)) as mem:
        stated = mem.add(text, workspace="said", consolidate=False)
        asking = mem.add(question, workspace="asked", consolidate=False)
        mem.wait_for_extraction()
        said = [f for f in mem.entity_facts(subject, workspace="said", include_invalid=True, min_confidence=0)
                if stated.id in f.sources]
        try:  # "User" is one entity for every workspace: the question's facts are those it is a source of
            asked = [f for f in mem.entity_facts(subject, workspace="asked", include_invalid=True, min_confidence=0)
                     if asking.id in f.sources]
        except NotFound:  # no fact made the subject an entity there
            asked = []
    found = [f for f in said if (f.predicate, f.object) == (predicate, obj)]
    assert len(found) == 1 and found[0].extractor != "caller", [(f.predicate, f.object) for f in said]
    assert (found[0].invalid_at is not None) is ended
    assert found[0].confidence >= max(proposer.load().threshold, Settings().kg_min_store)
    assert not any(f.object == obj for f in asked), [(f.predicate, f.object) for f in asked]
    ((ex, doc),) = candidates([text])  # and no rule reads it: the proposer alone does
    assert not any((f.predicate, f.object) == (predicate, obj) and f.confidence >= FLOOR
                   for f in scorer.score(ex, text, doc).facts)


@needs_parser
def test_the_setting_reads_memories_in_through_the_proposer_on_both_backends(target: str, tmp_path: Path) -> None:
    """On, a read-in keeps every fact it keeps off; whatever it adds is at least as sure as the proposer's threshold
    and the store floor."""
    import knotwork
    from knotwork import Settings

    texts = [t for t, _ in READS] + ["We moved the billing service from MySQL to Postgres last year."]
    found = {}
    for on in (False, True):
        where = target if on else str(tmp_path / "off.db")
        with knotwork.open(where, settings=Settings(embedder="none", kg_proposer=on)) as mem:
            for text in texts:
                mem.add(text, workspace="w", consolidate=False)
            mem.wait_for_extraction()
            found[on] = {(f.subject, f.predicate, f.object, f.confidence)
                         for name in ("worker", "User", "billing service")
                         for f in mem.entity_facts(name, workspace="w", min_confidence=0)}
    assert found[False] and found[False] <= found[True]
    floor = max(proposer.load().threshold, Settings().kg_min_store)
    assert all(f[3] >= floor for f in found[True] - found[False])
