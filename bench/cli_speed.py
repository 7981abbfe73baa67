"""Wall time of CLI commands that need no model, without a server: ``get``, ``list``, ``history``, ``stats``.

    .venv/bin/python bench/cli_speed.py [--runs 7]

In a fresh KNOTWORK_HOME (``KNOTWORK_URL=none``) holding 200 memories, runs each
command ``--runs`` times as its own process and reports the median and the
best wall time, beside ``python -c pass`` (the interpreter's own start) and the
import of the CLI module alone (``python -c 'import knotwork.adapters.cli'``),
and whether the embedding runtime was loaded (``onnxruntime`` in the process's
modules). Beside each wall time, the median CPU time (user + system) of the
process: on a machine busy with other work the wall time waits for a core, the
CPU time much less so. Prints one JSON object; run it under
``flock /tmp/knotwork-bench.lock``.

To compare with another version in the same harness, export it
(``git archive <commit> src | tar -x -C /tmp/old``) and run this script with
``PYTHONPATH=/tmp/old/src``: the commands then run that version's code.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PROBE = (
    "import sys, atexit; atexit.register(lambda: sys.stderr.write('ORT=%d\\n' % ('onnxruntime' in sys.modules)));"
    " from knotwork.adapters.entry import main; main(sys.argv[1:])"
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    walls, cpus = [], []
    for _ in range(runs):
        c0, t0 = _children_cpu(), time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - t0)
        cpus.append(_children_cpu() - c0)
    return {"median_s": round(statistics.median(walls), 3), "best_s": round(min(walls), 3),
            "median_cpu_s": round(statistics.median(cpus), 3)}


def knotwork_file() -> str:
    """Where the knotwork the commands run comes from (``PYTHONPATH`` may name another version's tree)."""
    import knotwork

    return knotwork.__file__


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=7)
    args = p.parse_args()
    report: dict[str, object] = {"loadavg_start": os.getloadavg(), "code": str(Path(knotwork_file()).parent)}
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KNOTWORK_")}
        env.update(KNOTWORK_HOME=tmp, KNOTWORK_URL="none")
        import knotwork

        with knotwork.open(Path(tmp) / "knotwork.db") as mem:
            added = mem.add_many([{"content": f"note {i}: the build step {i} runs after the lint step", "workspace": "w"} for i in range(200)])
            some = added[0].id
        knotwork_cli = str(BIN / "knotwork")
        report["python -c pass"] = timed([sys.executable, "-c", "pass"], env, args.runs)
        report["import knotwork.adapters.cli"] = timed([sys.executable, "-c", "import knotwork.adapters.cli"], env, args.runs)
        for name, cmd in (("get", ["get", some]), ("list", ["list", "-w", "w", "-n", "20"]), ("history", ["history", some]),
                          ("stats", ["stats"])):
            report[name] = timed([knotwork_cli, *cmd], env, args.runs)
            probe = subprocess.run([sys.executable, "-c", PROBE, *cmd], env=env, capture_output=True, text=True, check=True)
            report[name]["model_runtime_loaded"] = probe.stderr.strip().splitlines()[-1] == "ORT=1"
    report["loadavg_end"] = os.getloadavg()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
