"""``knotwork import`` shows each step of its work as it moves (records read, embedded, stored), and Ctrl-C
says what it kept. A real process, a real SIGINT sent while the import is seen embedding, a real SQLite file."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import knotwork
from knotwork.domain.ids import new_id

from .conftest import KNOTWORK, clean_env

RECORDS = 1500
WAIT_S = 300.0


def export_file(path: Path, n: int) -> Path:
    at = "2026-01-05T10:00:00Z"
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            content = f"Service {i} keeps its session cache in region {i % 17} and rotates keys every {i % 9 + 1} days."
            out.write(json.dumps({"id": new_id(), "created_at": at, "updated_at": at, "valid_at": at, "content": content}) + "\n")
    return path


def interrupt_while(args: list[str], home: Path, step: bytes, total: int, extra: dict[str, str] | None = None) -> tuple[int, int, bytes, str]:
    """Run ``knotwork *args``, send one SIGINT once its progress line ``step`` shows some but not all of ``total``
    done; (the count last seen before the signal, the exit status, stdout, everything it wrote on stderr)."""
    proc = subprocess.Popen([KNOTWORK, *args], env=clean_env(home, extra), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    said = bytearray()
    reader = threading.Thread(target=lambda: [said.extend(chunk) for chunk in iter(lambda: proc.stderr.read1(4096), b"")])
    reader.start()
    deadline = time.monotonic() + WAIT_S
    counted = re.compile(rb"%s: .*\| ([1-9]\d*)/%d " % (step, total))
    while not (seen := [int(n) for n in counted.findall(bytes(said)) if int(n) < total]):  # begun, not done
        assert proc.poll() is None and time.monotonic() < deadline, bytes(said).decode(errors="replace")
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=WAIT_S)  # not communicate(): it would read stderr too, and take the reader's last lines
    out = proc.stdout.read()
    reader.join()
    return seen[-1], proc.returncode, out, bytes(said).decode()


def test_progress_moves_with_each_step(tmp_path: Path) -> None:
    db, records = tmp_path / "store.db", export_file(tmp_path / "export.jsonl", 200)
    with knotwork.open(db):
        pass
    done = subprocess.run([KNOTWORK, "import", str(records), "--db", str(db), "--progress"], env=clean_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=WAIT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    drawn = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.strip()]
    steps = list(dict.fromkeys(line.split(":")[0] for line in drawn))
    assert [s for s in steps if s in ("read", "embedded", "stored")] == ["read", "embedded", "stored"], steps
    assert "graph" in steps  # read in at the import (inline here): drawn as the time it takes, not left silent
    embedded = [int(m.group(1)) for line in drawn if (m := re.match(r"embedded: .*\| (\d+)/200 ", line))]
    assert len(set(embedded)) > 2 and embedded[-1] == 200  # it moved in steps, not 0 then all
    assert done.stdout.strip() == "✓ Imported 200, skipped 0 already present"


def test_ctrl_c_during_an_import_keeps_nothing_and_says_so(tmp_path: Path) -> None:
    db, records = tmp_path / "store.db", export_file(tmp_path / "export.jsonl", RECORDS)
    with knotwork.open(db) as mem:
        kept = mem.add("Deploys need two approvals.").id
    seen, status, out, text = interrupt_while(["import", str(records), "--db", str(db), "--progress"], tmp_path / "home",
                                              b"embedded", RECORDS)
    assert seen < RECORDS  # the signal landed while records were being embedded
    assert status == 130, text
    assert text.rstrip().splitlines()[-1] == "interrupted: nothing imported; the store is unchanged"
    assert out == b"" and "stored: 100%" not in text
    with knotwork.open(db) as mem:
        assert [m.id for m in mem.list()] == [kept]
        assert mem.check().ok


def test_ctrl_c_during_a_reembed_says_how_many_were_kept(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    total = 900
    with knotwork.open(db) as mem:
        mem.add_many([{"content": f"Service {i} rotates its keys every {i % 9 + 1} days in region {i % 17}."} for i in range(total)],
                     consolidate=False)
    _, status, _, text = interrupt_while(["reembed", "--db", str(db), "--progress"], tmp_path / "home", b"re-embedded", total)
    last = text.rstrip().splitlines()[-1]
    assert status == 130, last
    kept = int(re.fullmatch(r"interrupted: (\d+) of 900 memories re-embedded \(each batch is kept as it is written\); "
                            r"the rest are found by their words only until `knotwork reembed` runs again", last).group(1))
    assert 0 < kept < total  # the signal landed between the first batch and the last
    with knotwork.open(db) as mem:
        assert len(mem.store.memories_without_vectors(total)) == total - kept  # what it said was kept, is


def test_ctrl_c_while_the_graph_is_read_in_keeps_the_import_and_says_so(tmp_path: Path) -> None:
    """With the graph read in the background (the default), the import waits for it as a step of its own
    that counts the memories read in; Ctrl-C there keeps the stored import and says what is left."""
    total = 300
    db, records = tmp_path / "store.db", export_file(tmp_path / "export.jsonl", total)
    with knotwork.open(db):
        pass
    seen, status, out, text = interrupt_while(["import", str(records), "--db", str(db), "--progress"], tmp_path / "home",
                                              b"read into the graph", total, {"KNOTWORK_ENRICH": "background"})
    assert 0 < seen < total  # the signal landed while the graph was being read in
    last = text.rstrip().splitlines()[-1]
    assert status == 130, text
    left = int(re.fullmatch(r"interrupted: the import is stored \(300 added\); (\d+) memories wait to be read into the "
                            r"knowledge graph, and a worker process goes on with them \(`knotwork status` shows how many "
                            r"are left\)", last).group(1))
    assert 0 < left <= total - seen
    assert out == b""
    with knotwork.open(db) as mem:
        assert len(mem.list(limit=1000)) == total  # the import was kept whole
