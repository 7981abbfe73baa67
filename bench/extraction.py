"""Precision and recall of the offline extraction on labelled sets.

    python bench/extraction.py [--half dev|test|both] [--set heldout|agents|memory2|memory3|corpus|all] [--rules]
                               [--show-errors] [--labels FILE] [--cost] [--by-rule [--min-stored N]] [--store-floor X]
                               [--proposer [THRESHOLD]]

The sets (bench/data/):

- ``extraction_agents.txt``: 302 sentences of what people tell coding agents
  and assistants (tools, stacks, preferences, people, places, moves, version
  changes, negations, hedges, sentences that state no fact), labelled before
  any system ran on them, dev and test halves, same format and scoring as
  ``extraction_heldout.txt``. Its labels include facts the predicate
  vocabulary cannot say: they count as misses (recall is coverage of the
  labels, not agreement with the rules).
- ``extraction_agents_sequences.txt``: 20 dated value-change sequences in
  the format of ``extraction_sequences.txt``, some stored out of date order
  (a memory about 2023 arriving after one about 2025).

- ``extraction_heldout.txt``: 305 sentences labelled before any system ran
  on them, in a dev half (tune on it) and a test half (report it), each with
  coding-agent memories and personal chat. ``F:`` facts are current, ``R:``
  facts are stated as over, negated or replaced; a fact matches only with
  the same status (a predicted ``past`` fact, or the ``replaces`` value of a
  change, is retired).
- ``extraction_sequences.txt``: dated value-change sequences, stored in order
  into a fresh store (the real service, rules extraction, no embedder). A
  sequence is *current and not stale* when its labelled value is current
  after the last memory and none of its older values is; *as_of* is the share
  of dated checks where the value true at that date is current then and the
  sequence's other values are not.
- ``extraction_memory2.txt`` (``--set memory2``): 421 memory-style sentences written fresh, as many
  different people write memories (terse notes, lists, dashes, several sentences in one item, pronouns
  that refer back, past changes, plans, hedges, questions, instructions; 123 state nothing), labelled
  before any system ran on them, same format and halves as ``extraction_heldout.txt``; with
  ``extraction_memory2_sequences.txt``, 30 dated change sequences (15 dev, 15 test), some stored out
  of date order.
- ``extraction_memory3.txt`` (``--set memory3``): 533 memory-style items drawn from real public text
  (instruction files and memory banks of coding agents, issue and pull-request threads, chat between
  friends and the observations recorded about it: dev; design records, meeting minutes, conversations
  with a personal assistant and persona lines: test), split by source and by kind of text, about a third of
  each half stating nothing, labelled before any system ran on them, same format as
  ``extraction_memory2.txt``; with ``extraction_memory3_sequences.txt``, 35 dated change sequences from
  the same sources' dated text (16 dev, 19 test; six composed from real lines, marked), some stored out of date order. A 60-item sample was
  labelled twice (``bench/memory3_agreement.py``).
- ``extraction_labels.txt``: the older set the regular-expression rules were
  tuned on (one status: every labelled fact, past or present, counts alike;
  the old value of a change is not labelled there and not counted).

- ``extraction_corpus/<kind>.txt`` and ``<kind>_sequences.txt`` (``--set corpus``): the larger
  corpus, one file per kind of source, split into dev and test halves by source; every file present
  is scored (``all`` includes them).
- ``extraction_fresh_sequences.txt`` (``--set fresh``, not in ``all``): dated change sequences alone,
  from two changelogs no other set used (virtualenv's: dev; pip's: test), a hold-out for the graph's
  values that change.

Each predicted fact carries the fact scorer's confidence (:mod:`knotwork.knowledge.scorer`); a fact
under the store floor (``--store-floor``, default ``KNOTWORK_KG_MIN_STORE``) is not counted, as it is
not stored. Per half, a reliability table: the facts in each confidence bucket (0.5-0.6 … 0.9-1.0),
their mean confidence and their precision; the expected calibration error (bucket-weighted
|precision - mean confidence|, over every bucket); and the precision and recall of the facts at
confidence >= 0.9 (what a reader who filters at 0.9 sees).

Entities are compared by normalised name (the resolver's exact-match key);
the predicted entities are the extraction's entities plus the ends of its
facts (what the graph stores). Micro-averaged. ``--rules`` forces the
regular-expression rules (the fallback when spaCy is not installed).
``--by-rule`` counts, per held-out set, the facts each rule stored
(``FactDraft.rule``: ``parse:<reading>:<phrase>`` or ``rules:<pattern>``)
and how many of them the labels hold: the precision of each rule, of each
rule family and of each predicate. Tune on the dev halves only. The learned proposer's facts
(:mod:`knotwork.knowledge.proposer`) are read as the setting ``KNOTWORK_KG_PROPOSER`` says (off by default;
``KNOTWORK_KG_PROPOSER=1`` gives the figures with it, the dated sequences included); ``--proposer`` reads
them whatever the setting, at its shipped threshold or at THRESHOLD.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import partial
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data"
LABELS = DATA / "extraction_labels.txt"
HELDOUT = DATA / "extraction_heldout.txt"
SEQUENCES = DATA / "extraction_sequences.txt"
AGENTS = DATA / "extraction_agents.txt"
AGENTS_SEQUENCES = DATA / "extraction_agents_sequences.txt"
MEMORY2 = DATA / "extraction_memory2.txt"
MEMORY2_SEQUENCES = DATA / "extraction_memory2_sequences.txt"
MEMORY3 = DATA / "extraction_memory3.txt"
MEMORY3_SEQUENCES = DATA / "extraction_memory3_sequences.txt"
#: sequences only (no sentences): a hold-out from two changelogs nothing else used (--set fresh; not in all)
FRESH_SEQUENCES = DATA / "extraction_fresh_sequences.txt"
#: --set -> (sentences, sequences)
CORPUS = DATA / "extraction_corpus"


def corpus_sets(folder: Path = CORPUS) -> list[tuple[Path, Path]]:
    """(sentences, sequences) of each kind of source in the corpus folder (a sequences file may be missing)."""
    return [(p, p.with_name(f"{p.stem}_sequences.txt")) for p in sorted(folder.glob("*.txt"))
            if not p.stem.endswith("_sequences")]


SETS = {"heldout": [(HELDOUT, SEQUENCES)], "agents": [(AGENTS, AGENTS_SEQUENCES)],
        "memory2": [(MEMORY2, MEMORY2_SEQUENCES)], "memory3": [(MEMORY3, MEMORY3_SEQUENCES)],
        "corpus": corpus_sets()}
SETS["all"] = SETS["heldout"] + SETS["agents"] + SETS["memory2"] + SETS["memory3"] + SETS["corpus"]
SETS["fresh"] = [(None, FRESH_SEQUENCES)]


@dataclass
class Item:
    section: str
    text: str
    entities: set[str] = field(default_factory=set)
    facts: set[tuple] = field(default_factory=set)


def _triple(text: str, normalize) -> tuple[str, str, str]:
    s, p, o = (x.strip() for x in text.split("|"))
    return normalize(s), p, normalize(o)


def load(path: Path, statuses: bool) -> list[Item]:
    from knotwork.knowledge.resolve import normalize

    items: list[Item] = []
    section = "all"
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("E:"):
            items[-1].entities = {normalize(x) for x in line[2:].split(";") if x.strip()}
        elif line.startswith(("F:", "R:")):
            status = "current" if line.startswith("F:") else "retired"
            for triple in line[2:].split(";"):
                if triple.strip():
                    items[-1].facts.add(_triple(triple, normalize) + ((status,) if statuses else ()))
        else:
            items.append(Item(section, line))
    return items


def predict(texts: list[str], statuses: bool, floor: float | None = None
            ) -> list[tuple[set[str], set[tuple], dict[tuple, str]]]:
    """Per text: the predicted entities, the predicted facts, and the rule that found each fact
    (``FactDraft.rule``; the old value of a change counts under its rule with ``/old``)."""
    return [(e, f, r) for e, f, r, _ in predict_scored(texts, statuses, floor)]


#: --proposer: read the learned proposer's facts too (None: as the setting KNOTWORK_KG_PROPOSER says)
PROPOSER: bool | None = None


def store_floor() -> float:
    from knotwork.config import Settings

    return Settings().kg_min_store


def predict_scored(texts: list[str], statuses: bool, floor: float | None = None
                   ) -> list[tuple[set[str], set[tuple], dict[tuple, str], dict[tuple, float]]]:
    """:func:`predict` and each predicted fact's confidence; facts under ``floor`` (default: the store
    floor setting) are left out, as the store leaves them out."""
    from knotwork.knowledge.extract import extract_many
    from knotwork.knowledge.resolve import normalize

    floor = store_floor() if floor is None else floor
    out = []
    from knotwork.config import Settings

    on = Settings().kg_proposer if PROPOSER is None else PROPOSER
    from knotwork.knowledge import proposer

    for ex in extract_many(texts, propose=partial(proposer.propose, floor=floor) if on else None):
        facts: set[tuple] = set()
        rules: dict[tuple, str] = {}
        confs: dict[tuple, float] = {}
        for f in ex.facts:
            if f.confidence < floor:
                continue
            triple = (normalize(f.subject), f.predicate, normalize(f.object))
            key = triple + (("retired" if f.past else "current",) if statuses else ())
            facts.add(key)
            rules.setdefault(key, f.rule or "?")
            confs.setdefault(key, f.confidence)
            if statuses and f.replaces:
                old = (triple[0], f.predicate, normalize(f.replaces), "retired")
                facts.add(old)
                rules.setdefault(old, (f.rule or "?") + "/old")
                confs.setdefault(old, f.confidence)
        entities = {normalize(e.name) for e in ex.entities} | {t[0] for t in facts} | {t[2] for t in facts}
        out.append((entities, facts, rules, confs))
    return out


@dataclass
class Calibration:
    """(confidence, right) of every predicted fact, and the labelled facts' count (for recall)."""

    pairs: list[tuple[float, bool]] = field(default_factory=list)
    gold: int = 0

    def add(self, facts: set[tuple], confs: dict[tuple, float], gold: set[tuple]) -> None:
        self.pairs += [(confs.get(f, 1.0), f in gold) for f in facts]
        self.gold += len(gold)

    def buckets(self) -> list[tuple[str, int, float, float]]:
        edges = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001]
        rows = []
        for lo, hi in zip(edges, edges[1:]):
            inside = [(c, r) for c, r in self.pairs if lo <= c < hi]
            if inside:
                rows.append((f"{lo:.1f}-{min(hi, 1.0):.1f}", len(inside), sum(c for c, _ in inside) / len(inside),
                             sum(r for _, r in inside) / len(inside)))
        return rows

    @property
    def ece(self) -> float:
        n = len(self.pairs)
        return sum(k / n * abs(prec - mean) for _, k, mean, prec in self.buckets()) if n else 0.0

    def at(self, threshold: float) -> tuple[float, float, int]:
        """Precision and recall of the facts at confidence >= threshold, and how many."""
        kept = [r for c, r in self.pairs if c >= threshold]
        right = sum(kept)
        return (right / len(kept) if kept else 1.0), (right / self.gold if self.gold else 1.0), len(kept)


def print_reliability(title: str, cal: dict[str, Calibration]) -> None:
    print(f"\n{title}: reliability (confidence buckets)\n")
    print("| half | confidence | facts | mean confidence | precision |")
    print("|---|---|---|---|---|")
    for half, c in cal.items():
        for bucket, n, mean, prec in c.buckets():
            print(f"| {half} | {bucket} | {n} | {mean:.3f} | {prec:.3f} |")
    print("\n| half | facts | ECE | P at conf>=0.9 | R at conf>=0.9 | facts at conf>=0.9 |")
    print("|---|---|---|---|---|---|")
    for half, c in cal.items():
        p9, r9, n9 = c.at(0.9)
        print(f"| {half} | {len(c.pairs)} | {c.ece:.3f} | {p9:.3f} | {r9:.3f} | {n9} |")


#: rule -> [stored, right]; filled by score_sentences when given one
RuleTally = dict[str, list[int]]


def tally_rules(tally: RuleTally, facts: set[tuple], rules: dict[tuple, str], gold: set[tuple]) -> None:
    """Count each predicted fact under its rule, under its rule's family ("parse:dobj") and under its
    predicate ("= uses"), with whether the labels hold it."""
    for fact in facts:
        rule = rules.get(fact, "?")
        family = ":".join(rule.removesuffix("/old").split(":")[:2])
        for key in {rule, family + " *", "= " + fact[1]}:
            row = tally.setdefault(key, [0, 0])
            row[0] += 1
            row[1] += fact in gold


def print_rules(tallies: dict[str, RuleTally], min_stored: int) -> None:
    """One row per rule, family and predicate; a column pair (stored, precision) per scored set."""
    names = list(tallies)
    keys = sorted({k for t in tallies.values() for k, v in t.items()},
                  key=lambda k: (k.startswith("= "), not k.endswith(" *"), k))
    print("\nfacts by rule (`rule *`: the rule's family, `= predicate`: every rule together)\n")
    print("| rule | " + " | ".join(f"{n} stored | {n} P" for n in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for key in keys:
        rows = [tallies[n].get(key, [0, 0]) for n in names]
        if max(r[0] for r in rows) < min_stored:
            continue
        cells = " | ".join(f"{r[0]} | {r[1] / r[0]:.2f}" if r[0] else "0 | -" for r in rows)
        print(f"| {key} | {cells} |")


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, predicted: set, gold: set) -> None:
        self.tp += len(predicted & gold)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def score_sentences(items: list[Item], statuses: bool, show_errors: bool,
                    tally: RuleTally | None = None, floor: float | None = None,
                    cal: dict[str, Calibration] | None = None) -> dict[str, tuple[Score, Score, int]]:
    """Entity and fact scores by section and over all; ``cal`` (by half) collects each fact's confidence."""
    scores: dict[str, tuple[Score, Score, int]] = {}
    start = time.perf_counter()
    predicted = predict_scored([i.text for i in items], statuses, floor)
    ms = (time.perf_counter() - start) / max(len(items), 1) * 1000
    for item, (ents, facts, rules, confs) in zip(items, predicted):
        if tally is not None:
            tally_rules(tally, facts, rules, item.facts)
        if cal is not None:
            cal.setdefault(item.section.split()[0], Calibration()).add(facts, confs, item.facts)
        for key in (item.section, "all"):
            e, f, n = scores.setdefault(key, (Score(), Score(), 0))
            e.add(ents, item.entities)
            f.add(facts, item.facts)
            scores[key] = (e, f, n + 1)
        if show_errors and (ents != item.entities or facts != item.facts):
            print(item.text)
            for label, pred, gold in (("entities", ents, item.entities), ("facts", facts, item.facts)):
                if pred - gold and label == "facts":
                    print(f"   extra facts: {sorted((*f, rules.get(f, '?'), confs.get(f)) for f in pred - gold)}")
                elif pred - gold:
                    print(f"   extra {label}: {sorted(pred - gold)}")
                if gold - pred:
                    print(f"   missed {label}: {sorted(gold - pred)}")
    print(f"({len(items)} sentences, {ms:.2f} ms each)")
    return scores


def print_table(title: str, scores: dict[str, tuple[Score, Score, int]]) -> None:
    print(f"\n{title}\n")
    print("| section | sentences | entity P | entity R | fact P | fact R |")
    print("|---|---|---|---|---|---|")
    for key, (e, f, n) in scores.items():
        print(f"| {key} | {n} | {e.precision:.3f} | {e.recall:.3f} | {f.precision:.3f} | {f.recall:.3f} |")


@dataclass
class Sequence:
    half: str
    name: str
    steps: list[tuple[str, str]] = field(default_factory=list)
    current: tuple[str, str, str] | None = None
    stale: list[str] = field(default_factory=list)
    as_of: list[tuple[str, str, str, str]] = field(default_factory=list)


def load_sequences(path: Path) -> list[Sequence]:
    seqs: list[Sequence] = []
    half = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("### "):
            seqs.append(Sequence(half, line[4:].strip()))
        elif line.startswith("## "):
            half = line[3:].strip()
        elif line.startswith("C:"):
            seqs[-1].current = tuple(x.strip() for x in line[2:].split("|"))  # type: ignore[assignment]
        elif line.startswith("S:"):
            seqs[-1].stale = [x.strip() for x in line[2:].split(";") if x.strip()]
        elif line.startswith("A:"):
            seqs[-1].as_of.append(tuple(x.strip() for x in line[2:].split("|")))  # type: ignore[arg-type]
        else:
            date, text = (x.strip() for x in line.split("|", 1))
            seqs[-1].steps.append((date, text))
    return seqs


def _values(mem, subject: str, predicate: str, at: str) -> set[str]:
    from knotwork.errors import NotFound
    from knotwork.knowledge.resolve import normalize

    try:
        facts = mem.entity_facts(subject, as_of=at)
    except NotFound:
        return set()
    subj = normalize(subject)
    return {normalize(f.object) for f in facts if f.predicate == predicate and normalize(f.subject) == subj}


def score_sequences(seqs: list[Sequence], show_errors: bool) -> dict[str, tuple[int, int, int, int]]:
    """By half: (current-and-not-stale, sequences, as_of right, as_of checks)."""
    import knotwork
    from knotwork.config import Settings
    from knotwork.knowledge.resolve import normalize

    out: dict[str, tuple[int, int, int, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, seq in enumerate(seqs):
            settings = Settings(embedder="none")
            mem = knotwork.open(Path(tmp) / f"seq{i}.db", settings=settings)
            try:
                for date, text in seq.steps:
                    mem.add(text, valid_at=date + "T12:00:00Z")
                mem.wait_for_extraction()  # the graph is read in after the adds
                s, p, o = seq.current  # type: ignore[misc]
                end = "2099-01-01T00:00:00Z"
                now_values = _values(mem, s, p, end)
                ok = normalize(o) in now_values and not any(normalize(x) in now_values for x in seq.stale)
                others = {normalize(o)} | {normalize(x) for x in seq.stale}
                right = 0
                for date, s2, p2, o2 in seq.as_of:
                    vals = _values(mem, s2, p2, date + "T00:00:00Z")
                    good = normalize(o2) in vals and not (vals & (others - {normalize(o2)}))
                    right += good
                    if show_errors and not good:
                        print(f"   {seq.name} as of {date}: {sorted(vals)} (want {o2})")
                if show_errors and not ok:
                    print(f"   {seq.name} at the end: {sorted(now_values)} (want {o}, not {seq.stale})")
            finally:
                mem.close()
            a, n, r, c = out.get(seq.half, (0, 0, 0, 0))
            out[seq.half] = (a + ok, n + 1, r + right, c + len(seq.as_of))
    return out


def cost(texts: list[str]) -> str:
    """Per-memory extraction cost: each text extracted on its own (as the enrichment worker does)."""
    from knotwork.knowledge.extract import extract

    extract("warm up the pipeline.")
    wall: list[float] = []
    cpu0 = time.process_time()
    for text in texts:
        t0 = time.perf_counter()
        extract(text)
        wall.append((time.perf_counter() - t0) * 1000)
    cpu = time.process_time() - cpu0
    wall.sort()
    p95 = wall[min(len(wall) - 1, int(round(0.95 * (len(wall) - 1))))]
    return (f"{len(texts)} memories, one at a time: median {wall[len(wall) // 2]:.2f} ms, p95 {p95:.2f} ms, "
            f"{len(texts) / cpu:.0f} memories per CPU-second")



# -- the training sets, read by bench/train_fact_scorer.py and bench/train_sentence_gate.py ----------------
def sources(corpus: Path = CORPUS) -> list[tuple[Path, bool, bool]]:
    """(file, statuses, dev half only) of each training set."""
    out = [(HELDOUT, True, True), (AGENTS, True, True), (LABELS, False, False)]
    if corpus.is_dir():
        out += [(p, True, True) for p in sorted(corpus.glob("*.txt")) if not p.stem.endswith("_sequences")]
    return out


def sources_of(path: Path) -> dict[str, str]:
    """The source of each item of a corpus file (its "# source: <id>" line), by text; none in the older sets."""
    out: dict[str, str] = {}
    source = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("# source:"):
            source = line.split(":", 1)[1].strip()
        elif line.startswith("## "):
            source = None
        elif source and line and not line.startswith(("#", "E:", "F:", "R:")):
            out.setdefault(line, source)
    return out


def digest(items: list) -> str:
    """A short hash of labelled items (text, entities, facts): says whether the training data changed."""
    rows = [[i.text, sorted(i.entities), sorted(map(list, i.facts))] for i in items]
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()[:16]


def training_sets(corpus: Path = CORPUS) -> Iterator[tuple[Path, bool, bool, list, list[int]]]:
    """Per training set: (file, statuses, dev half only, its training items, each item's fold group). A group is
    the item's own number, or, where the corpus names the item's source, that source's (negative) number, so that
    a source's items never score one another out of fold."""
    ids: dict[tuple[str, str], int] = {}
    group = 0
    for path, statuses, dev_only in sources(corpus):
        items = [i for i in load(path, statuses) if not dev_only or i.section.split()[0] == "dev"]
        source_of = sources_of(path)
        groups = []
        for item in items:
            source = source_of.get(item.text)
            groups.append(group if source is None else -1 - ids.setdefault((path.name, source), len(ids)))
            group += 1
        yield path, statuses, dev_only, items, groups


def source_groups(corpus: Path = CORPUS) -> Iterator[list[int]]:
    """Per training set (in :func:`training_sets`' order), each item's source: its corpus source, or in the older
    sets, which name none, its file's section ("dev coding", "personal": one writer, one register). Folds grouped
    so say how a scorer does on text of a source it never saw, as the independent checks are; grouping the older
    sets by sentence, as the shipped fits do, flatters their calibration."""
    ids: dict[tuple[str, str], int] = {}
    for path, _, _, items, _ in training_sets(corpus):
        source_of = sources_of(path)
        yield [ids.setdefault((path.name, source_of.get(i.text) or "section " + i.section), len(ids)) for i in items]


def read_line(path: Path, dev_only: bool, items: list, what: str) -> str:
    """What a trainer read of one set, as its weights file records it (the same name whichever folder --corpus
    named)."""
    where = "data" if path.parent == DATA else CORPUS.name
    return f"{where}/{path.name}{' (dev)' if dev_only else ''}: {len(items)} {what}, sha256 {digest(items)}"


def reliability(p: np.ndarray, y: np.ndarray) -> tuple[list[tuple[str, int, float, float]], float]:
    """Per bucket 0.0-0.5, 0.5-0.6 … 0.9-1.0: (bucket, facts, mean confidence, precision); and the expected
    calibration error (bucket-weighted |precision - mean confidence|)."""
    edges = [0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001]
    rows, ece = [], 0.0
    for lo, hi in zip(edges, edges[1:]):
        m = (p >= lo) & (p < hi)
        if m.any():
            rows.append((f"{lo:.1f}-{min(hi, 1.0):.1f}", int(m.sum()), float(p[m].mean()), float(y[m].mean())))
            ece += m.sum() / len(p) * abs(p[m].mean() - y[m].mean())
    return rows, float(ece)


def print_sequences(path: Path, halves: tuple[str, ...], args: argparse.Namespace) -> None:
    seqs = [s for s in load_sequences(path) if s.half in halves]
    print(f"\n{path.name}, half {args.half}\n")
    print("| half | sequences | current and not stale | as_of right |")
    print("|---|---|---|---|")
    for half, (ok, n, right, checks) in score_sequences(seqs, args.show_errors).items():
        print(f"| {half} | {n} | {ok}/{n} = {ok / n:.2f} | {right}/{checks} = {right / checks:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("dev", "test", "both"), default="dev",
                        help="which half of the held-out sets to score (the test half: only to report)")
    parser.add_argument("--labels", type=Path, default=LABELS, help="the older labelled set")
    parser.add_argument("--set", choices=sorted(SETS), default="all", help="which held-out sets to score")
    parser.add_argument("--cost", action="store_true", help="also time each memory's extraction on its own")
    parser.add_argument("--rules", action="store_true", help="use the regular-expression rules only")
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument("--by-rule", action="store_true",
                        help="also count the facts each rule stored and how many the labels hold, per set")
    parser.add_argument("--min-stored", type=int, default=1, help="with --by-rule: hide rules that stored fewer")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus folder (--set corpus or all)")
    parser.add_argument("--store-floor", type=float, default=None,
                        help="leave out facts under this confidence (default: KNOTWORK_KG_MIN_STORE)")
    parser.add_argument("--proposer", nargs="?", type=float, const=-1.0, default=None, metavar="THRESHOLD",
                        help="also the learned proposer's facts (at its shipped threshold, or at THRESHOLD)")
    args = parser.parse_args()
    from knotwork.knowledge.nlp import disable, pipeline

    if args.proposer is not None:
        from knotwork.knowledge import proposer

        global PROPOSER
        PROPOSER = True
        if args.proposer >= 0 and proposer.load() is not None:
            proposer.load().threshold = args.proposer

    if args.rules:
        disable()

    print("extraction:", "dependency parse (spaCy)" if pipeline() is not None else "regular-expression rules")
    halves = ("dev", "test") if args.half == "both" else (args.half,)
    texts: list[str] = []
    tallies: dict[str, RuleTally] = {}
    summary: list[tuple[str, str, Score, Calibration, Score]] = []
    sets = SETS[args.set]
    if args.set in ("corpus", "all") and args.corpus != CORPUS:
        sets = [s for s in sets if s[0].parent != CORPUS] + corpus_sets(args.corpus)
    for sentences_file, sequences_file in sets:
        if sentences_file is None:  # a set of sequences alone
            print_sequences(sequences_file, halves, args)
            continue
        items = [i for i in load(sentences_file, statuses=True) if i.section.split()[0] in halves]
        texts += [i.text for i in items]
        tally = tallies.setdefault(f"{sentences_file.stem.removeprefix('extraction_')} {args.half}", {})
        cal: dict[str, Calibration] = {}
        scores = score_sentences(items, True, args.show_errors, tally if args.by_rule else None, args.store_floor, cal)
        print_table(f"{sentences_file.name}, half {args.half} (facts with status)", scores)
        print_reliability(sentences_file.name, cal)
        for half in halves:
            facts, ents = Score(), Score()
            for key, (e, f, _n) in scores.items():
                if key.split()[0] == half:
                    facts.tp, facts.fp, facts.fn = facts.tp + f.tp, facts.fp + f.fp, facts.fn + f.fn
                    ents.tp, ents.fp, ents.fn = ents.tp + e.tp, ents.fp + e.fp, ents.fn + e.fn
            name = sentences_file.stem.removeprefix("extraction_")
            name = f"corpus/{name}" if sentences_file.parent.name != DATA.name else name
            summary.append((name, half, facts, cal.get(half, Calibration()), ents))
        if sequences_file.exists():
            print_sequences(sequences_file, halves, args)
    for half in halves:  # the corpus' kinds of source together
        parts = [(f, c, e) for name, h, f, c, e in summary if name.startswith("corpus/") and h == half]
        if len(parts) > 1:
            pooled, cal_all, ents_all = Score(), Calibration(), Score()
            for f, c, e in parts:
                pooled.tp, pooled.fp, pooled.fn = pooled.tp + f.tp, pooled.fp + f.fp, pooled.fn + f.fn
                ents_all.tp, ents_all.fp, ents_all.fn = ents_all.tp + e.tp, ents_all.fp + e.fp, ents_all.fn + e.fn
                cal_all.pairs += c.pairs
                cal_all.gold += c.gold
            summary.append(("corpus (every kind)", half, pooled, cal_all, ents_all))
    old = load(args.labels, statuses=False)
    print()
    old_cal: dict[str, Calibration] = {}
    old_scores = score_sentences(old, False, False, None, args.store_floor, old_cal)
    print_table(f"{args.labels.name} (tuning set of the regular-expression rules)", old_scores)
    whole = Calibration([p for c in old_cal.values() for p in c.pairs], sum(c.gold for c in old_cal.values()))
    summary.append((args.labels.stem.removeprefix("extraction_"), "all (trained on)", old_scores["all"][1], whole,
                    old_scores["all"][0]))
    print("\nsummary: facts with status (the old set: without), and entities\n")
    print("| set | half | fact P | fact R | P at conf>=0.9 | R at conf>=0.9 | ECE | entity P | entity R |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, half, f, c, e in summary:
        p9, r9, _ = c.at(0.9)
        print(f"| {name} | {half} | {f.precision:.3f} | {f.recall:.3f} | {p9:.3f} | {r9:.3f} | {c.ece:.3f} "
              f"| {e.precision:.3f} | {e.recall:.3f} |")
    if args.by_rule:
        print_rules(tallies, args.min_stored)
    if args.cost:
        print("\ncost:", cost(texts + [i.text for i in old]))


if __name__ == "__main__":
    sys.exit(main())
