"""The project check: in one project's memories, added in time order (and some late), what is true now?

Data: bench/data/project_changes/*.txt (thirty small projects, dev 24 / test 6 by project; labels written
before any run; the first three test halves, seen, are now part of dev; the folder's README says how each half was
made and the format). Each project's memories go through the public API (``Knotwork.add``, one at a time, with the defaults:
consolidation on, the bundled embedder, the offline graph rules) in their arrival order, each with its ``valid_at``,
into a fresh SQLite store of its own (one workspace); then the graph is waited for and every change is asked:

- **newer first**: the default search for the change's question (``search(question, workspace=...)``, limit
  10) has the current memory, above every memory it replaced (a retired memory left out of the hits counts as
  below it);
- **current on top**: the current memory is the first hit;
- **older retired**: each memory the change says it replaces is retired (``invalid_at`` set); counted per
  memory and per change (all of the change's older memories retired);
- **wrong retirements**: a memory neither labelled as replaced nor ``outdated`` (still true, among them every
  memory of a ``compatible`` pair) that ends retired, or that the store's ignore rules turned away at the add
  (``LOST`` in ``--show``); must be 0;
- **retired above its successor**: with ``include_invalid=True`` (limit 50), a retired memory ranked above the
  memory that retired it (its ``superseded_by``); the default search leaves retired memories out;
- **graph**: where the current memory and a replaced one gave a fact of one subject and predicate with
  another object (a graph fact exists for the change), does the graph hold the current memory's value now,
  and the replaced one's the day before the change (``entity_facts`` with ``as_of``)?

A memory's id in the labels is the id its add answered with (a NOOP answers with the memory it repeats).
Deterministic: no clock is read but the memories' own dates (``search(now=...)`` at the day after the last
memory). ``--recipe NAME`` searches with that recipe instead of the default. ``--show`` prints every miss and
wrong retirement; ``--json FILE`` writes the per-change rows.

    PYTHONPATH=src python bench/project_changes.py [--half dev|test|both] [--project NAME ...] [--show]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "project_changes"
_MEMORY = re.compile(r"^(m\d+) (\d{4}-\d{2}-\d{2}) (.+)$")
_CHANGE = re.compile(r"^change ([\w-]+): (.+?) \| (m\d+) > ((?:m\d+ ?)+) \| (cue|nocue)( late)?$")


@dataclass
class Change:
    name: str
    question: str
    current: str
    retires: list[str]
    cue: bool
    late: bool


@dataclass
class Project:
    name: str
    split: str
    workspace: str
    memories: list[tuple[str, datetime, str]] = field(default_factory=list)  # (label id, valid_at, text)
    changes: list[Change] = field(default_factory=list)
    compatible: list[tuple[str, str]] = field(default_factory=list)
    outdated: set[str] = field(default_factory=set)


def load(path: Path) -> Project:
    """One project file (format in the data folder's README); a line that reads as nothing is an error."""
    head: dict[str, str] = {}
    project: Project | None = None
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if project is None and re.match(r"^(project|split|workspace|about|note): ", line):
            key, value = line.split(": ", 1)
            head[key] = value
            continue
        if project is None:
            project = Project(head["project"], head["split"], head["workspace"])
        if m := _MEMORY.match(line):
            at = datetime.fromisoformat(m.group(2)).replace(hour=9, tzinfo=UTC)
            project.memories.append((m.group(1), at, m.group(3)))
        elif m := _CHANGE.match(line):
            project.changes.append(Change(m.group(1), m.group(2), m.group(3), m.group(4).split(), m.group(5) == "cue",
                                          bool(m.group(6))))
        elif line.startswith("compatible: "):
            a, b = line.split()[1:]
            project.compatible.append((a, b))
        elif line.startswith("outdated: "):
            project.outdated.update(line.split()[1:])
        else:
            raise SystemExit(f"{path.name}:{n}: cannot read {line!r}")
    if project is None or project.split not in ("dev", "test"):
        raise SystemExit(f"{path.name}: no memories or no dev/test split")
    known = {m[0] for m in project.memories}
    named = {i for c in project.changes for i in (c.current, *c.retires)} | {i for p in project.compatible for i in p}
    if named - known or project.outdated - known:
        raise SystemExit(f"{path.name}: labels name unknown memories {sorted((named | project.outdated) - known)}")
    return project


def projects(half: str, names: list[str] | None) -> list[Project]:
    out = [load(p) for p in sorted(DATA.glob("*.txt"))]
    return [p for p in out if (half == "both" or p.split == half) and (not names or p.name in names)]


def graph_check(mem, project: Project, ids: dict[str, str], change: Change, at: dict[str, datetime]) -> tuple[bool, bool] | None:
    """(now right, before right) for the change's (subject, predicate) in the graph, or None when no fact of the
    current memory and a replaced one share a subject and predicate with another object."""
    chain = [change.current, *change.retires]
    mids = {ids[k]: k for k in chain}
    facts: dict[str, list] = {k: [] for k in chain}
    for ep in mem.episodes(workspace=project.workspace, limit=200):
        if ep.memory_id not in mids:
            continue
        for name in ep.entities:
            for f in mem.entity_facts(name, workspace=project.workspace, include_invalid=True):
                if ep.memory_id in f.sources and f not in facts[mids[ep.memory_id]]:
                    facts[mids[ep.memory_id]].append(f)
    keys = {(f.subject_id, f.predicate): f.object for f in facts[change.current]}
    old = [(k, f) for k in change.retires for f in facts[k]
           if (f.subject_id, f.predicate) in keys and keys[f.subject_id, f.predicate] != f.object]
    if not old:
        return None
    (subject, predicate), value = next(((f.subject_id, f.predicate), keys[f.subject_id, f.predicate]) for _, f in old)

    def held(when: datetime | None) -> set[str]:
        return {f.object for f in mem.entity_facts(subject, workspace=project.workspace, as_of=when)
                if f.predicate == predicate and f.subject_id == subject}

    before = at[change.current] - timedelta(days=1)
    old_values = {f.object for k, f in old if at[k] <= before}
    now_right = held(None) == {value}
    before_held = held(before)
    before_right = value not in before_held and (not old_values or bool(before_held & old_values))
    return now_right, before_right


def run(project: Project, show: list[str], recipe: str | None = None) -> dict:
    import knotwork
    from knotwork import Settings

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        with knotwork.open(Path(tmp) / f"{project.name}.db", settings=Settings(home=Path(tmp) / "home")) as mem:
            ids: dict[str, str] = {}
            at = {k: when for k, when, _ in project.memories}
            decisions: dict[str, str] = {}
            for key, when, text in project.memories:
                m = mem.add(text, workspace=project.workspace, valid_at=when)
                ids[key] = m.id
                decisions[key] = f"{m.decision} {m.reason or ''}".strip()
            assert mem.wait_for_extraction(600)
            now = max(at.values()) + timedelta(days=1)
            label = {v: k for k, v in reversed(list(ids.items()))}
            texts = {k: text for k, _, text in project.memories}
            # an add the store's ignore rules turned away stored nothing: its id resolves to nothing, and a
            # true memory ignored at the add is lost (counted with the wrong retirements)
            ignored = {k for k, d in decisions.items() if d.startswith("IGNORE")}
            stored = [k for k in ids if k not in ignored]
            retired = {k for k in stored if mem.get(ids[k]).invalid_at is not None}
            # a replaced memory also counts as retired when a later add took its place (an UPDATE: the memory
            # holds the newer text, the older one lives on only in its history); a wrong retirement is only a
            # still-true memory with ``invalid_at`` (an UPDATE keeps everything the older text said)
            in_place = {k for k in stored if mem.get(ids[k]).content != texts[k]}
            replaced = {i for c in project.changes for i in c.retires}
            keep = set(ids) - replaced - project.outdated
            wrong = sorted(k for k in keep if k in retired and ids[k] not in {ids[r] for r in replaced})
            for k in sorted(keep & ignored):
                show.append(f"  LOST {project.name}/{k} ignored at the add ({decisions[k]}): {texts[k]!r}")
            wrong = sorted(set(wrong) | (keep & ignored))
            for k in (k for k in wrong if k not in ignored):
                m = mem.get(ids[k])
                by = label.get((m.metadata.get("superseded_by") or {}).get("id"), "?")
                show.append(f"  WRONG {project.name}/{k} retired by {by}: {m.content!r}")
            for c in project.changes:
                hits = [h.memory.id for h in mem.search(c.question, workspace=project.workspace, now=now, recipe=recipe)]
                # with the retired memories in: none of those retired ranks above the memory that retired it
                every = [h.memory.id for h in mem.search(c.question, workspace=project.workspace, now=now,
                                                         recipe=recipe, include_invalid=True, limit=50)]
                above = 0
                for r in (r for r in c.retires if r not in ignored):
                    m = mem.get(ids[r])
                    by = (m.metadata.get("superseded_by") or {}).get("id")
                    if m.invalid_at is not None and by in every and ids[r] in every and every.index(ids[r]) < every.index(by):
                        above += 1
                cur = ids[c.current]
                rank = hits.index(cur) if cur in hits else None
                olds = [ids[r] for r in c.retires if ids[r] != cur]
                first = rank is not None and all(o not in hits or hits.index(o) > rank for o in olds)
                gone = [r for r in c.retires if r in retired or r in in_place]
                graph = graph_check(mem, project, ids, c, at)
                rows.append({"project": project.name, "change": c.name, "cue": c.cue, "late": c.late,
                             "newer_first": first, "on_top": rank == 0, "retired": len(gone),
                             "to_retire": len(c.retires), "graph": graph, "retired_above": above})
                if not first or rank != 0 or len(gone) < len(c.retires) or (graph and not all(graph)):
                    show.append(f"  {project.name}/{c.name} ({'cue' if c.cue else 'nocue'}{' late' if c.late else ''}): "
                                f"newer first {first}, rank {rank}, retired {len(gone)}/{len(c.retires)}, graph {graph}")
                    top = [label.get(h, h) for h in hits[:5]]
                    show.append(f"    top: {top}; {c.current}: {decisions[c.current]!r}")
                    for r in c.retires:
                        if r not in gone:
                            show.append(f"    kept {r}: {project.memories[int(r[1:]) - 1][2]!r} ({decisions[r]!r})")
                    show.append(f"    current {c.current}: {project.memories[int(c.current[1:]) - 1][2]!r}")
    return {"rows": rows, "wrong": len(wrong), "kept_true": len(keep), "compatible": len(project.compatible),
            "compatible_wrong": sum(a in wrong or b in wrong for a, b in project.compatible)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("dev", "test", "both"), default="dev")
    ap.add_argument("--project", nargs="*")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--recipe", help="search with this recipe instead of the default (e.g. memory_current)")
    args = ap.parse_args()
    chosen = projects(args.half, args.project)
    halves = [h for h in ("dev", "test") if any(p.split == h for p in chosen)]
    print("| half | projects | changes | newer first | current on top | older retired (memories) "
          "| changes all retired | wrong retirements (still-true memories) | graph: changes with a fact | graph right now | graph right before "
          "| retired above its successor (include_invalid) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    out = []
    for half in halves:
        show: list[str] = []
        results = [run(p, show, args.recipe) for p in chosen if p.split == half]
        rows = [r for res in results for r in res["rows"]]
        n = len(rows)
        first = sum(r["newer_first"] for r in rows)
        top = sum(r["on_top"] for r in rows)
        gone, due = sum(r["retired"] for r in rows), sum(r["to_retire"] for r in rows)
        whole = sum(r["retired"] == r["to_retire"] for r in rows)
        wrong, kept = sum(r["wrong"] for r in results), sum(r["kept_true"] for r in results)
        graphs = [r["graph"] for r in rows if r["graph"] is not None]
        print(f"| {half} | {len(results)} | {n} | {first}/{n} = {first / n:.3f} | {top}/{n} = {top / n:.3f} "
              f"| {gone}/{due} = {gone / due:.3f} | {whole}/{n} | {wrong} (of {kept}) | {len(graphs)} "
              f"| {sum(g[0] for g in graphs)}/{len(graphs)} | {sum(g[1] for g in graphs)}/{len(graphs)} "
              f"| {sum(r['retired_above'] for r in rows)} |")
        out += rows
        if args.show:
            print("\n".join(show), file=sys.stderr)
    cue = [r for r in out if r["cue"]]
    bare = [r for r in out if not r["cue"]]
    late = [r for r in out if r["late"]]
    for name, part in (("with a cue word", cue), ("no cue word", bare), ("a late arrival", late)):
        if part:
            print(f"- {name}: {len(part)} changes, newer first {sum(r['newer_first'] for r in part)}, "
                  f"all retired {sum(r['retired'] == r['to_retire'] for r in part)}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
