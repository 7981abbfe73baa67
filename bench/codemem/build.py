"""Build bench/codemem/memories.jsonl and links.jsonl from raw public text.

    python bench/codemem/build.py [--cache bench/.cache/codemem] [--cap 180]

Two kinds of source, both read from the cache directory (gitignored):

- ``sdists/NAME-VERSION.tar.gz``: PyPI source distributions, fetched with
  ``pip download --no-deps --no-binary :all: NAME==VERSION -d bench/.cache/codemem/sdists``.
  Their changelog is parsed here: one memory per top-level bullet of the
  newest releases (whole releases, until ``--cap`` bullets), with the
  release date as ``valid_at``.
- ``adrs_*.py``: architecture decision records condensed by hand (the
  record's own words, trimmed) with their links, one module per repository
  (``R`` repo, ``WS`` workspace, ``ROWS``). Without them, the ADR memories
  and links already in memories.jsonl / links.jsonl are kept as they are.

Questions are never written here: questions.jsonl is written by hand.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import tarfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_CACHE = REPO / "bench" / ".cache" / "codemem"

PALLETS = r"^Version (\d[\w.]*)\s*$"
ISO_PAREN = r"^v?(\d+\.\d+[\w.]*) \((\d{4}-\d{2}-\d{2})\)\s*$"
KEEPACHANGELOG = r"^## \[([\w.]+)\]\(.*?\) - (\d{4}-\d{2}-\d{2})"

# workspace -> (sdist, changelog path inside it, version header, licence, project name in text)
CHANGELOGS: dict[str, tuple[str, str, str, str, str]] = {
    "click": ("click-8.1.7", "CHANGES.rst", PALLETS, "BSD-3-Clause", "click"),
    "flask": ("flask-3.0.3", "CHANGES.rst", PALLETS, "BSD-3-Clause", "Flask"),
    "werkzeug": ("werkzeug-3.0.3", "CHANGES.rst", PALLETS, "BSD-3-Clause", "Werkzeug"),
    "attrs": ("attrs-23.2.0", "CHANGELOG.md", KEEPACHANGELOG, "MIT", "attrs"),
    "structlog": ("structlog-24.1.0", "CHANGELOG.md", KEEPACHANGELOG, "MIT OR Apache-2.0", "structlog"),
    "httpx": ("httpx-0.27.0", "CHANGELOG.md", r"^## (\d+\.\d+[\w.]*) \((.+?)\)", "BSD-3-Clause", "HTTPX"),
    "requests": ("requests-2.31.0", "HISTORY.md", ISO_PAREN, "Apache-2.0", "Requests"),
    "urllib3": ("urllib3-2.2.1", "CHANGES.rst", ISO_PAREN, "MIT", "urllib3"),
    "sqlite-utils": ("sqlite-utils-3.36", "docs/changelog.rst", ISO_PAREN, "Apache-2.0", "sqlite-utils"),
}

ADR_LICENCE = {"ministryofjustice/cloud-platform": "MIT", "alphagov/govuk-aws": "MIT"}

SECTION_KIND = {
    "fixed": "fix", "fixes": "fix", "bugfixes": "fix", "bug fixes": "fix", "bugfix": "fix",
    "added": "feature", "features": "feature", "new features": "feature", "improvements": "improvement",
    "changed": "change", "changes": "change", "deprecated": "deprecation", "deprecations": "deprecation",
    "removed": "removal", "removals": "removal", "security": "security", "dependencies": "dependency",
    "backwards-incompatible changes": "breaking", "breaking changes": "breaking", "documentation": "docs",
}


def parse_date(text: str) -> str | None:
    """ISO date from '2023-08-17' or httpx's '21st February, 2024'."""
    text = text.strip()
    m = re.search(r"\d{4}-\d{2}-\d{2}", text)
    if m:
        return m.group(0)
    m = re.match(r"(\d{1,2})(?:st|nd|rd|th)? (\w+),? (\d{4})", text)
    if m:
        try:
            return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%d %B %Y").date().isoformat()
        except ValueError:
            return None
    return None


def releases(text: str, header: str) -> list[dict[str, Any]]:
    """Split a changelog into releases: version, date, [(section, bullet lines)]."""
    lines = text.splitlines()
    rel_re = re.compile(header)
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    bullet: list[str] | None = None
    section = ""
    for i, line in enumerate(lines):
        m = rel_re.match(line)
        if m:
            date = parse_date(m.group(2)) if m.lastindex and m.lastindex >= 2 else None
            if date is None:  # Pallets: "Released 2023-08-17" a few lines below
                for nxt in lines[i + 1 : i + 5]:
                    dm = re.match(r"\s*Released (\d{4}-\d{2}-\d{2})", nxt)
                    if dm:
                        date = dm.group(1)
                        break
            current = {"version": m.group(1), "date": date, "bullets": []}
            out.append(current)
            bullet, section = None, ""
            continue
        if current is None:
            continue
        if re.match(r"^\s*[-=~^]{3,}\s*$", line) or re.match(r"^\s*Released ", line):
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        heading = re.match(r"^#{3,4} (.+)$", line) or re.match(r"^\*\*(.+?)\*\*\s*$", line)
        if heading or (line.strip() and not line.startswith((" ", "-", "*")) and re.match(r"^[-~^]{3,}\s*$", nxt)):
            section = (heading.group(1) if heading else line).strip().rstrip(":")
            bullet = None
            continue
        bm = re.match(r"^[-*]\s+(.*)$", line)
        if bm:
            bullet = [bm.group(1)]
            current["bullets"].append((section, bullet))
        elif bullet is not None and (line.startswith((" ", "\t")) or not line.strip()):
            bullet.append(line.strip())
        else:
            bullet = None
    return [r for r in out if r["date"]]


ROLE_RE = re.compile(r":(\w+):`([^`]+)`")


def clean(raw: str) -> str:
    text = raw
    text = re.sub(r"`([^`<]+?) <[^>]+>`__?", r"\1", text)  # rst links
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)  # md links

    def role(m: re.Match[str]) -> str:
        kind, value = m.group(1), m.group(2)
        value = re.sub(r"\s*<[^>]+>$", "", value)
        if kind == "issue":
            return f"#{value}"
        if kind == "pr":
            return f"PR #{value}"
        if kind == "ghsa":
            return f"GHSA-{value}"
        if kind == "user":
            return f"@{value}"
        if kind == "cve":
            return value
        return f"`{value.lstrip('~')}`"

    text = ROLE_RE.sub(role, text)
    text = text.replace("``", "`")
    text = re.sub(r"\\([\[\]_*])", r"\1", text)
    text = re.sub(r"\s+", " ", text).strip()
    words = text.split(" ")
    if len(words) > 200:
        text = " ".join(words[:200]) + " …"
    return text


def evidence(raw: str) -> list[str]:
    found: list[str] = []
    for kind, value in ROLE_RE.findall(raw):
        if kind == "issue":
            found.append(f"#{value}")
        elif kind == "pr":
            found.append(f"PR #{value}")
        elif kind == "ghsa":
            found.append(f"GHSA-{value}")
    found += re.findall(r"CVE-\d{4}-\d{4,}", raw)
    found += ["GHSA-" + g for g in re.findall(r"GHSA-([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})", raw)]
    for num in re.findall(r"(?<![\w/])#(\d{2,6})\b", raw):
        found.append(f"#{num}")
    for num in re.findall(r"/(?:issues|pull)/(\d+)", raw):
        found.append(f"#{num}")
    out = list(dict.fromkeys(found))
    return [e for e in out if not (e.startswith("#") and f"PR {e}" in out)]


def artifacts(raw: str) -> list[str]:
    plain = ROLE_RE.sub(" ", raw)
    spans = re.findall(r"``([^`]+)``", plain)
    spans += re.findall(r"(?<!`)`([^`<]+)`(?!`)", re.sub(r"``[^`]+``", "", plain))
    spans += [v for k, v in ROLE_RE.findall(raw) if k in {"func", "meth", "class", "attr", "mod", "data", "exc", "obj"}]
    out: list[str] = []
    for s in spans:
        s = re.sub(r"\s*<[^>]+>$", "", s).strip().lstrip("~")
        if not s or len(s) > 80 or " " in s.strip("() ") and not s.startswith("-"):
            continue
        if re.search(r"[._/()\-]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]", s) or s.isidentifier():
            out.append(s)
    for url in re.findall(r"https?://[^\s>)`]+", raw):
        if not re.search(r"github\.com/[^/]+/[^/]+/(issues|pull)/\d+", url):
            out.append(url.rstrip(".,"))
    return list(dict.fromkeys(out))[:10]


def changelog_memories(cache: Path, cap: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for ws, (sdist, path, header, licence, name) in CHANGELOGS.items():
        archive = cache / "sdists" / f"{sdist}.tar.gz"
        with tarfile.open(archive) as tar:
            member = tar.extractfile(f"{sdist}/{path}")
            assert member is not None, f"{sdist}/{path} missing"
            text = member.read().decode("utf-8")
        package, version = sdist.rsplit("-", 1)
        taken = 0
        for rel in releases(text, header):
            if taken >= cap:
                break
            n = 0
            for section, lines in rel["bullets"]:
                raw = " ".join(lines)
                if not raw.strip() or "Short description of non-trivial change" in raw:
                    continue
                n += 1
                kind = SECTION_KIND.get(section.lower(), "change")
                prefix = f"{name} {rel['version']}" + (f", {section}" if section else "")
                rows.append({
                    "id": f"{ws}-{rel['version']}-{n:02d}",
                    "workspace": ws,
                    "content": f"{prefix}: {clean(raw)}",
                    "valid_at": f"{rel['date']}T00:00:00Z",
                    "category": "change",
                    "tags": {"project": ws, "kind": "changelog", "change": kind, "version": rel["version"]},
                    "artifacts": artifacts(raw),
                    "evidence": evidence(raw),
                    "source": {"package": package, "version": version, "path": path, "licence": licence},
                })
            taken += n
    return rows


def shared_evidence_links(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Changelog entries naming the same issue or PR: the later one relates_to the earlier one."""
    by: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        for e in r["evidence"]:
            if e.startswith(("#", "PR #")):
                by[(r["workspace"], e.removeprefix("PR "))].append(r)
    links: list[dict[str, str]] = []
    for (_, ev), group in sorted(by.items()):
        if not 2 <= len(group) <= 3:
            continue
        group = sorted(group, key=lambda r: (r["valid_at"], r["id"]))
        for earlier, later in zip(group, group[1:]):
            links.append({"source": later["id"], "target": earlier["id"], "type": "relates_to", "why": f"both name {ev}"})
    return links


def adr_memories(cache: Path) -> tuple[list[dict[str, Any]], list[dict[str, str]]] | None:
    modules = sorted(cache.glob("adrs_*.py"))
    if not modules:
        return None
    rows: list[dict[str, Any]] = []
    links: list[dict[str, str]] = []
    for path in modules:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for mid, date, src_path, commit, category, content, arts, evid, rlinks in mod.ROWS:
            status = re.search(r"Status: (\w+)", content)
            rows.append({
                "id": mid,
                "workspace": mod.WS,
                "content": content,
                "valid_at": f"{date}T00:00:00Z",
                "category": category,
                "tags": {"project": mod.WS, "kind": "adr", "status": (status.group(1).lower() if status else "unknown")},
                "artifacts": list(arts),
                "evidence": list(evid),
                "source": {"repo": mod.R, "path": src_path, "commit": commit, "licence": ADR_LICENCE[mod.R]},
            })
            for kind, target, *why in rlinks:
                links.append({"source": mid, "target": target, "type": kind, "why": why[0] if why else "stated in the record"})
    return rows, links


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--cap", type=int, default=180, help="changelog bullets per project (whole releases, newest first)")
    args = parser.parse_args()

    changes = changelog_memories(args.cache, args.cap)
    adrs = adr_memories(args.cache)
    if adrs is None:  # no hand excerpts here: keep the committed ADR rows and their links
        old = read_jsonl(HERE / "memories.jsonl")
        adr_rows = [r for r in old if r["tags"].get("kind") == "adr"]
        ids = {r["id"] for r in adr_rows}
        adr_links = [l for l in read_jsonl(HERE / "links.jsonl") if l["source"] in ids]
    else:
        adr_rows, adr_links = adrs
    extra = read_jsonl(HERE / "links_manual.jsonl")
    memories = adr_rows + changes
    links = adr_links + shared_evidence_links(changes)
    seen = {(l["source"], l["target"], l["type"]) for l in links}
    links += [l for l in extra if (l["source"], l["target"], l["type"]) not in seen]
    write_jsonl(HERE / "memories.jsonl", memories)
    write_jsonl(HERE / "links.jsonl", links)
    per = defaultdict(int)
    for m in memories:
        per[m["workspace"]] += 1
    print(f"{len(memories)} memories, {len(links)} links: " + ", ".join(f"{k} {v}" for k, v in sorted(per.items())))


if __name__ == "__main__":
    main()
