#!/usr/bin/env python3
"""samestore.py: show two triage builds store the same thing (issue 27).

    scripts/samestore.py /tmp/triage-old /tmp/triage-new FILE...

For each FILE and each build it makes two fresh stores, one by `import
--rules FILE` and one by `import FILE` then `rules run`, and compares across
the builds: `traces --json`, `report --json`, and every table of the store
row by row (the stored bytes: compressed bodies and verdict rows included),
with only the wall-clock columns (created_at, imported_at, applied_at) left out. It
prints one line per comparison and exits 1 on any difference.
"""
import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile

if len(sys.argv) < 4:
    sys.exit(__doc__)
old, new, files = sys.argv[1], sys.argv[2], sys.argv[3:]
tmp = tempfile.mkdtemp(prefix="samestore-")
CLOCK = {"created_at", "imported_at", "applied_at"}


def triage(binary, db, *args):
    r = subprocess.run([binary, "--db", db, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode not in (0, 3):
        sys.exit(f"{binary} {' '.join(args)}: exit {r.returncode}: {r.stderr.decode()}")
    return r.stdout


def tables(db):
    out = {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    for t in names:
        cols = [r[1] for r in con.execute(f"PRAGMA table_info({t})") if r[1] not in CLOCK]
        h, n = hashlib.sha256(), 0
        for row in con.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY rowid"):
            h.update(repr(row).encode())
            n += 1
        out[t] = (n, h.hexdigest()[:16])
    con.close()
    return out


def fresh(db):
    for s in ("", "-wal", "-shm", "-writers"):
        if os.path.exists(db + s):
            os.remove(db + s)


def store(binary, tag, path, onepass):
    db = os.path.join(tmp, f"{tag}.db")
    fresh(db)
    if onepass:
        triage(binary, db, "import", "--rules", path)
    else:
        triage(binary, db, "import", path)
        triage(binary, db, "rules", "run")
    got = {"traces --json": hashlib.sha256(triage(binary, db, "traces", "--json")).hexdigest()[:16],
           "report --json": hashlib.sha256(triage(binary, db, "report", "--json")).hexdigest()[:16]}
    for t, v in tables(db).items():
        got[f"table {t}"] = v
    fresh(db)
    return got


bad = 0
for path in files:
    for onepass in (True, False):
        how = "import --rules" if onepass else "import + rules run"
        a, b = store(old, "old", path, onepass), store(new, "new", path, onepass)
        for k in sorted(set(a) | set(b)):
            same = a.get(k) == b.get(k)
            bad += not same
            print(f"{'same' if same else 'DIFFERENT'}  {os.path.basename(path)}  {how}  {k}  {a.get(k)}  {b.get(k)}")
os.rmdir(tmp)
sys.exit(1 if bad else 0)
