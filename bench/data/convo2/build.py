"""Rebuild turns.jsonl from the QMSum repository's meeting transcripts (see README.md); questions.jsonl is hand-written.

    python bench/data/convo2/build.py > bench/data/convo2/turns.jsonl            # from source.tar.xz, committed here
    git clone https://github.com/Yale-LILY/QMSum /tmp/qmsum && git -C /tmp/qmsum checkout 83d7768c1f2b4dfeb091385d3dc7e239b8e5bb7e
    python bench/data/convo2/build.py /tmp/qmsum > bench/data/convo2/turns.jsonl  # from the repository itself

Either way every source file is checked against ``sources.sha256`` first.

Selection, all deterministic: six stores, each the meetings of one recurring
group (two ICSI research groups, four AMI design teams) as one member of it
would remember them. From each meeting, a window of ``WINDOW`` turns that
starts where the meeting's first annotated topic starts (QMSum's
``topic_list``). A turn is one speaker's run of consecutive utterances,
joined with spaces, after the transcript's markup (``{disfmarker}``,
``{vocalsound}``, ``{gap}``..., and ICSI's ``@ @`` for an unintelligible
word) is dropped and its tokenised punctuation ("I 'm", "ready .",
"Mm - hmm") is joined back. Speakers get pseudonyms, one per store
and source label. The source has no clock times: each meeting gets a start
time (``START``), and each source utterance lasts 1 s plus 0.35 s a word,
counted from the meeting's first utterance, so a window begins as far into
its meeting as the utterances before it would take.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tarfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

# store -> (half, [(meeting, start "YYYY-MM-DD HH:MM" UTC), ...])
STORES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "m1": ("dev", [("Bro003", "2024-01-09 16:00"), ("Bro008", "2024-01-23 16:00"), ("Bro013", "2024-02-06 16:00"),
                   ("Bro018", "2024-02-20 16:00"), ("Bro024", "2024-03-05 16:00"), ("Bro028", "2024-03-19 16:00")]),
    "m2": ("test", [("Bmr005", "2024-01-11 15:30"), ("Bmr010", "2024-01-25 15:30"), ("Bmr014", "2024-02-08 15:30"),
                    ("Bmr019", "2024-02-22 15:30"), ("Bmr024", "2024-03-07 15:30"), ("Bmr027", "2024-03-21 15:30")]),
    "m3": ("dev", [("ES2002a", "2024-04-02 09:30"), ("ES2002b", "2024-04-04 09:30"), ("ES2002c", "2024-04-09 13:00"),
                   ("ES2002d", "2024-04-11 13:00")]),
    "m4": ("test", [("ES2004a", "2024-04-03 10:00"), ("ES2004b", "2024-04-05 10:00"), ("ES2004c", "2024-04-10 14:00"),
                    ("ES2004d", "2024-04-12 14:00")]),
    "m5": ("dev", [("IS1000a", "2024-05-06 11:00"), ("IS1000b", "2024-05-08 11:00"), ("IS1000c", "2024-05-13 11:00"),
                   ("IS1000d", "2024-05-15 11:00")]),
    "m6": ("test", [("TS3004a", "2024-05-07 09:00"), ("TS3004b", "2024-05-09 09:00"), ("TS3004c", "2024-05-14 09:00"),
                    ("TS3004d", "2024-05-16 09:00")]),
}
WINDOW = 60
MARKUP = re.compile(r"\{[a-z]+\}")
NAMES = """Ava Ben Cora Dan Eli Fay Gus Hana Ivan Jade Kai Lena Milo Nora Omar Pia Quinn Rosa Sam Tara Uma Vic Wes Xena Yara Zane
Abby Blake Cleo Drew Emma Finn Gia Hugo Iris Jon Kira Leo Maya Nico Opal Paul Remy Sara Theo Ula Vera Will Zoe""".split()


def clean(text: str) -> str:
    text = MARKUP.sub(" ", text).replace("@ @", " ").replace(" @ ", " ")
    text = re.sub(r"(?<=\w) - (?=\w)", "-", text)
    text = re.sub(r" (n't|'s|'re|'m|'ll|'ve|'d)\b", r"\1", text)
    text = re.sub(r" +([,.?!])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "source.tar.xz"
SHA256 = {line.split()[1]: line.split()[0] for line in (HERE / "sources.sha256").read_text().splitlines()}


def read_sources(root: Path, sha256: dict[str, str] = SHA256) -> dict[str, bytes]:
    """Every source file by its path, from a QMSum checkout or a tar archive of those paths, each checked
    against ``sha256`` (the files of QMSum commit 83d7768 this set was built from)."""
    if root.is_file():
        with tarfile.open(root) as tar:
            found = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.name in sha256 and m.isfile()}
    else:
        found = {p: (root / p).read_bytes() for p in sha256 if (root / p).is_file()}
    for path, digest in sha256.items():
        if path not in found:
            raise SystemExit(f"{root}: no {path} (is this a QMSum checkout?)")
        if hashlib.sha256(found[path]).hexdigest() != digest:
            raise SystemExit(f"{root}: {path}: sha256 differs from sources.sha256")
    return found


def meeting(sources: dict[str, bytes], name: str) -> dict:
    return json.loads(next(raw for path, raw in sources.items() if path.endswith(f"/{name}.json")))


def windows(data: dict) -> tuple[int, list[tuple[int, str, str, float]]]:
    """(first index, [(source index, speaker label, cleaned text, seconds from the meeting's start)]), merged."""
    utterances = data["meeting_transcripts"]
    start = int(data["topic_list"][0]["relevant_text_span"][0][0])
    clock, at = 0.0, []
    for u in utterances:
        at.append(clock)
        clock += 1 + 0.35 * len(u["content"].split())
    turns: list[tuple[int, str, str, float]] = []
    for i in range(start, len(utterances)):
        text = clean(utterances[i]["content"])
        if not text:
            continue
        speaker = utterances[i]["speaker"]
        if turns and turns[-1][1] == speaker:
            first, _, before, t = turns[-1]
            turns[-1] = (first, speaker, f"{before} {text}", t)
            continue
        if len(turns) == WINDOW:
            break
        turns.append((i, speaker, text, at[i]))
    return start, turns


def build(sources: dict[str, bytes], stores: dict[str, tuple[str, list[tuple[str, str]]]] = STORES) -> list[dict]:
    rows = []
    for store, (half, meetings) in stores.items():
        name_of: dict[str, str] = {}
        for name, start in meetings:
            began = datetime.strptime(start, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc)
            _, turns = windows(meeting(sources, name))
            thread = name.lower()
            for index, (source, label, text, seconds) in enumerate(turns):
                speaker = name_of.setdefault(label, NAMES[len(name_of)])
                at = (began + timedelta(seconds=round(seconds))).strftime("%Y-%m-%dT%H:%M:%SZ")
                rows.append({"id": f"{thread}#{index}", "store": store, "half": half, "thread": thread, "index": index,
                             "speaker": speaker, "role": label, "text": text, "at": at, "source_id": f"{name}:{source}"})
    return rows


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main() -> None:
    sys.stdout.write(render(build(read_sources(Path(sys.argv[1]) if len(sys.argv) > 1 else ARCHIVE))))


if __name__ == "__main__":
    main()
