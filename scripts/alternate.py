#!/usr/bin/env python3
"""alternate.py: time two or more triage binaries on the same 100k file, one
after the other, round after round, and print each step's median.

    go build -o /tmp/triage-old ./cmd/triage   # at the commit before
    go build -o /tmp/triage-new ./cmd/triage   # at the commit after
    scripts/alternate.py 7 /tmp/triage-old /tmp/triage-new

This VM's share of its two cores moves a single wall time by 30 % or more,
so a change is judged by binaries run alternately under the same load, not
by two benches taken at different times (docs/PERFORMANCE.md).

Environment: STEPS (default import,rules,onepass,report: `import F` on a
fresh store, then `rules run` and `report --json` on it, and `import --rules
F` on another fresh store); ROWS (default bench-out/data/100k.jsonl, which
scripts/bench.sh generates). Stores go to $TMPDIR and are removed.
"""
import os
import statistics
import subprocess
import sys
import tempfile

if len(sys.argv) < 3:
    sys.exit(__doc__)
rounds, bins = int(sys.argv[1]), sys.argv[2:]
rows = os.environ.get("ROWS", "bench-out/data/100k.jsonl")
steps = os.environ.get("STEPS", "import,rules,onepass,report").split(",")
tmp = tempfile.mkdtemp(prefix="alternate-")
res = {}


def run(step, binary, args, db):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", binary, "--db", db] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, user, sys_, rss = r.stderr.strip().splitlines()[-1].split()
    res.setdefault((step, binary), []).append((float(wall), float(user) + float(sys_), int(rss) // 1024))


def fresh(db):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(db + suffix)
        except FileNotFoundError:
            pass


for _ in range(rounds):
    for i, b in enumerate(bins):
        db = os.path.join(tmp, f"{i}.db")
        if {"import", "rules", "report"} & set(steps):
            fresh(db)
            run("import", b, ["import", rows], db)
            if {"rules", "report"} & set(steps):
                run("rules", b, ["rules", "run"], db)
            if "report" in steps:
                run("report", b, ["report", "--json"], db)
        if "onepass" in steps:
            fresh(db)
            run("onepass", b, ["import", "--rules", rows], db)
        fresh(db)
os.rmdir(tmp)
for step in ("import", "rules", "onepass", "report"):
    for b in bins:
        v = res.get((step, b))
        if not v:
            continue
        walls = [x[0] for x in v]
        print(f"{step:8} {b:28} wall median {statistics.median(walls):.2f} s "
              f"[{' '.join(f'{w:.2f}' for w in walls)}]  cpu median {statistics.median(x[1] for x in v):.2f} s  "
              f"peak rss {max(x[2] for x in v)} MB")
