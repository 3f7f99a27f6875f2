#!/usr/bin/env bash
# scripts/scale.sh: every user-facing step at 10k, 100k and 1M traces, each
# with wall time and peak memory, and the seed article's Python classifier
# on the same files in the same run (issue 8, docs/PERFORMANCE.md "Scale").
#
#   scripts/scale.sh                    # 10k, 100k, 1M (about 6 minutes on 2 cores)
#   SCALE_SIZES="10000 100000" scripts/scale.sh
#   BENCH_REF=worktree scripts/scale.sh # measure uncommitted code
#
# Per size: card init (frozen controls, sample pack), import, rules run,
# report --json, report (text), card export, the review TUI (first frame,
# queue loaded, first trace opened, peak RSS), agree --ratings on as many
# units rated by two reviewers, and python3 seed_classify.py. Outputs go to
# bench-out/scale/ (git-ignored); summary.txt is the table.
set -euo pipefail

if [[ ! -f go.mod || ! -d cmd/triage ]]; then
	echo "scale.sh: run me from the repository root (scripts/scale.sh)" >&2
	exit 2
fi
for tool in /usr/bin/time python3 go git; do
	command -v "$tool" >/dev/null || { echo "scale.sh: $tool is required" >&2; exit 2; }
done

ROOT=$PWD
OUT=$ROOT/bench-out/scale
REF=${BENCH_REF:-HEAD}
SIZES=${SCALE_SIZES:-10000 100000 1000000}
mkdir -p "$OUT"/{bin,data,db,time,log}
: >"$OUT/results.tsv"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

build_ref
PACK=$SRC/testdata/sample/pack

label() { # 10000 -> 10k
	awk -v n="$1" 'BEGIN { if (n >= 1e6 && n % 1e6 == 0) print n / 1e6 "m"; else if (n >= 1e3 && n % 1e3 == 0) print n / 1e3 "k"; else print n }'
}

for n in $SIZES; do
	s=$(label "$n")
	data=$OUT/data/$s.jsonl
	ratings=$OUT/data/$s-ratings.csv
	db=$OUT/db/$s.db
	gen "$n" "$data"
	if [[ ! -f $ratings ]]; then
		# Two reviewers, eight classes, agreeing on about 80% of units.
		python3 - "$n" "$ratings" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(1)
classes = ["PASS_CONTRACT", "PASS_WEAK", "ASSUME_API", "TOOL_LOOP", "MISSING_ASK", "SCOPE_SLIP", "TIMEOUT", "SCORER_RED"]
with open(path, "w") as f:
    f.write("unit,rater,label\n")
    for u in range(n):
        a = rng.choice(classes)
        b = a if rng.random() < 0.8 else rng.choice(classes)
        f.write(f"u{u},ana,{a}\nu{u},ben,{b}\n")
PY
	fi
	fresh "$db"
	# The budgets are generous so that the frozen controls change no verdict.
	"$TRIAGE" --db "$db" card init --run "$s" --pack "$PACK" --dataset-id bench --scorer "pytest -q" \
		--wall-s 100000 --max-output-tokens 1000000000 --max-tool-calls 1000000 \
		--image-digest sha256:bench --network=false --prompt-id p1 >/dev/null
	measure "import_$s" "$TRIAGE" --db "$db" import "$data"
	measure "rules_$s" "$TRIAGE" --db "$db" rules run
	measure "python_seed_$s" python3 "$SRC/testdata/rules/seed_classify.py" "$data"
	measure "report_json_$s" "$TRIAGE" --db "$db" report --json
	measure "report_text_$s" "$TRIAGE" --db "$db" report --width 100
	measure "card_export_$s" "$TRIAGE" --db "$db" card export --run "$s" --allow-unresolved --allow-untrusted
	measure "agree_$s" "$TRIAGE" --db "$db" agree --ratings "$ratings"
	tui "tui_$s" "$db"
	du -h "$db" >&2
	[[ ${BENCH_KEEP:-0} == 1 ]] || fresh "$db"
done

{
	echo
	echo "triage $COMMIT on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
	echo
	printf '%-22s %8s %8s %8s %9s %4s %6s\n' step wall_s user_s sys_s maxrss_MB rc load
	awk -F'\t' '{ printf "%-22s %8s %8s %8s %9s %4s %6s\n", $1, $2, $3, $4, $5, $6, $7 }' "$OUT/results.tsv"
	echo
	echo "load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/summary.txt"
