#!/usr/bin/env bash
# scripts/bench.sh: measure triage against the speed targets of issues 2-5,
# each figure beside its baseline, and print a summary table; and (issue 21)
# triage beside DuckDB doing the same job on the same rows
# (scripts/duckdb_seed.cjs), with triage's ratio to it.
#
#   scripts/bench.sh            # everything (about 5 minutes on 2 cores)
#   BENCH_COUNT=1 scripts/bench.sh
#   BENCH_REF=worktree scripts/bench.sh   # measure uncommitted code
#
# Run from the repository root. Everything is written under bench-out/
# (git-ignored): the inputs, the stores, /usr/bin/time reports, CPU
# profiles, go test -bench output, and results.tsv with one line a step.
#
# Environment:
#   BENCH_REF     commit to measure (default HEAD). The tree is exported
#                 with `git archive` into bench-out/src, so other people's
#                 uncommitted work cannot break or colour the figures, and
#                 every figure names its commit. "worktree" measures the
#                 working tree as it is.
#   BENCH_COUNT   -count for go test -bench (default 3).
#   BENCH_1M=0    skip the 1,000,000-row import.
#   BENCH_GO=0    skip the Go benchmarks.
#   BENCH_TUI=0   skip the review TUI on a real store (needs tmux).
#   BENCH_KEEP=1  keep the 1M store (about 0.6 GB) afterwards.
#   BENCH_REPEAT  rounds of the 100k import/rules steps, of DuckDB and of
#                 the seed's script (default 3); the summary takes each
#                 one's median round, since one run on a shared VM varies
#                 by 30 %.
#   BENCH_DUCKDB=0  skip DuckDB (issue 21; skipped with a message anyway
#                 where npm or node is missing or the install fails).
#   BENCH_DUCKDB_DIR  where @duckdb/node-api is installed with npm (default
#                 $XDG_CACHE_HOME/triage-bench/duckdb-VERSION, never inside
#                 the repository).
#   BENCH_SHAPES=0  skip scripts/shapes.sh (issue 27: the same rows spread
#                 over one run, 2,000 runs and 100,000 tasks, at 100k and
#                 1M, beside DuckDB and the seed's script; SHAPES_1M=0 and
#                 BENCH_BASE=COMMIT are passed on).
set -euo pipefail

if [[ ! -f go.mod || ! -d cmd/triage ]]; then
	echo "bench.sh: run me from the repository root (scripts/bench.sh)" >&2
	exit 2
fi
for tool in /usr/bin/time python3 go git; do
	command -v "$tool" >/dev/null || { echo "bench.sh: $tool is required" >&2; exit 2; }
done

ROOT=$PWD
OUT=$ROOT/bench-out
REF=${BENCH_REF:-HEAD}
COUNT=${BENCH_COUNT:-3}
mkdir -p "$OUT"/{bin,data,db,time,log,prof,gobench}
: >"$OUT/results.tsv"

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

# --- source and binaries ----------------------------------------------------
build_ref

# --- DuckDB (issue 21) -------------------------------------------------------
# duck_setup and duck are in scripts/lib.sh (shapes.sh uses them too).
duck_setup

# --- machine ----------------------------------------------------------------
{
	echo "commit:   $COMMIT"
	echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "nproc:    $(nproc)"
	echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "memory:   $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "go:       $(go version)"
	echo "python:   $(python3 --version 2>&1)"
	echo "sqlite:   modernc.org/sqlite (pure Go)"
	[[ -z $DUCK ]] || echo "duckdb:   @duckdb/node-api $DUCKDB_VERSION, node $(node --version)"
	echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min, before the run)"
} | tee "$OUT/machine.txt" >&2

# --- inputs -----------------------------------------------------------------
F100K=$OUT/data/100k.jsonl
F1M=$OUT/data/1m.jsonl
gen 100000 "$F100K"
[[ ${BENCH_1M:-1} == 0 ]] || gen 1000000 "$F1M"

# --- timed commands (measure and fresh are in scripts/lib.sh) -------------
DB100=$OUT/db/100k.db
DBIR=$OUT/db/100k-import-rules.db
DBONE=$OUT/db/100k-one-pass.db
DB1M=$OUT/db/1m.db
DBPROF=$OUT/db/profile.db

# Each 100k step runs BENCH_REPEAT rounds (NAME_r1, NAME_r2, ...), the
# stores made afresh each round; median_of then files the median round's
# line under NAME, which the summary reads.
REPEAT=${BENCH_REPEAT:-3}
for r in $(seq 1 "$REPEAT"); do
	fresh "$DB100"
	measure "import_100k_r$r" "$TRIAGE" --db "$DB100" import "$F100K"
	measure "reimport_100k_r$r" "$TRIAGE" --db "$DB100" import "$F100K"
	measure "rules_100k_r$r" "$TRIAGE" --db "$DB100" rules run

	fresh "$DBIR"
	measure "import_rules_100k_r$r" bash -c '"$1" --db "$2" import "$3" && "$1" --db "$2" rules run' _ "$TRIAGE" "$DBIR" "$F100K"
	# DuckDB between triage's two-command and one-pass rounds, so that
	# each sits beside a run of it under the same load.
	[[ -z $DUCK ]] || duck "duckdb_100k_r$r" "$F100K"
	# The same end state in one pass: import --rules labels as it stores,
	# and the rules run after it finds nothing left (tested equal in
	# cmd/triage/import_rules_test.go).
	fresh "$DBONE"
	measure "import_rules_onepass_100k_r$r" bash -c '"$1" --db "$2" import --rules "$3" && "$1" --db "$2" rules run' _ "$TRIAGE" "$DBONE" "$F100K"
	# The one pass alone (issue 21's "one pass"): import --rules.
	fresh "$DBONE"
	measure "onepass_100k_r$r" "$TRIAGE" --db "$DBONE" import --rules "$F100K"
	fresh "$DBONE"

	# The seed article's classifier (stores nothing, prints one class a
	# row and then the card), on the same file, in the same script.
	measure "python_seed_100k_r$r" python3 "$SRC/testdata/rules/seed_classify.py" "$F100K"
done
# median_of NAME: append NAME's median round (by wall) as NAME.
median_of() {
	awk -F'\t' -v OFS='\t' -v n="$1" '$1 ~ "^" n "_r[0-9]+$" { sub(/_r[0-9]+$/, "", $1); line[++k] = $0; wall[k] = $2 + 0 }
		END {
			if (!k) exit
			for (i = 1; i <= k; i++) idx[i] = i
			for (i = 2; i <= k; i++) for (j = i; j > 1 && wall[idx[j-1]] > wall[idx[j]]; j--) { t = idx[j]; idx[j] = idx[j-1]; idx[j-1] = t }
			print line[idx[int((k + 1) / 2)]]
		}' "$OUT/results.tsv" >>"$OUT/results.tsv.median"
}
: >"$OUT/results.tsv.median"
for n in import_100k reimport_100k rules_100k import_rules_100k import_rules_onepass_100k onepass_100k duckdb_100k python_seed_100k; do
	median_of "$n"
done
cat "$OUT/results.tsv.median" >>"$OUT/results.tsv"
rm -f "$OUT/results.tsv.median"

measure report_json_100k "$TRIAGE" --db "$DBIR" report --json

if [[ ${BENCH_1M:-1} != 0 ]]; then
	fresh "$DB1M"
	measure import_1m "$TRIAGE" --db "$DB1M" import "$F1M"
	measure rules_1m "$TRIAGE" --db "$DB1M" rules run
	du -h "$DB1M" >&2
	fresh "$DB1M"
	measure onepass_1m "$TRIAGE" --db "$DB1M" import --rules "$F1M"
	[[ ${BENCH_KEEP:-0} == 1 ]] || fresh "$DB1M"
	[[ -z $DUCK ]] || duck duckdb_1m "$F1M"
fi

# --- CPU profiles (not timed) ----------------------------------------------
log "profiles: triage --cpuprofile on import and rules run (100k)"
fresh "$DBPROF"
"$TRIAGE" --cpuprofile "$OUT/prof/import.pprof" --db "$DBPROF" import "$F100K" >/dev/null
"$TRIAGE" --cpuprofile "$OUT/prof/rules.pprof" --db "$DBPROF" rules run >/dev/null 2>&1
for p in import rules; do
	go tool pprof -top -nodecount=30 "$TRIAGE" "$OUT/prof/$p.pprof" >"$OUT/prof/$p-top.txt" 2>/dev/null || true
	go tool pprof -top -cum -nodecount=40 "$TRIAGE" "$OUT/prof/$p.pprof" >"$OUT/prof/$p-cum.txt" 2>/dev/null || true
done
fresh "$DBPROF"

# --- the review TUI on a real store ----------------------------------------
# scripts/lib.sh's tui: first frame, queue loaded, first trace opened and
# peak RSS of `triage review` on the labelled 100k store.
if [[ ${BENCH_TUI:-1} != 0 ]]; then
	tui tui_100k "$DBIR"
fi

# --- Go benchmarks ----------------------------------------------------------
if [[ ${BENCH_GO:-1} != 0 ]]; then
	for pkg in internal/rules internal/agreement internal/ui internal/ui/diffview internal/ingest internal/store/sqlite cmd/triage; do
		f=$OUT/gobench/$(echo "$pkg" | tr / _).txt
		log "go test -run XXX -bench . -benchmem -count $COUNT ./$pkg"
		(cd "$SRC" && TRIAGE_BENCH_ROWS=$F100K go test -run XXX -bench . -benchmem -count "$COUNT" "./$pkg") >"$f" 2>&1 ||
			echo "   FAILED, see $f" >&2
		grep -E '^(Benchmark|ok|FAIL|PASS)' "$f" | grep -v '^PASS' >&2 || true
	done
fi

# --- shapes (issue 27) ---------------------------------------------------------
# The same rows spread over runs and tasks as teams accumulate them, in its
# own summary (bench-out/shapes/summary.txt), appended to this one below.
if [[ ${BENCH_SHAPES:-1} != 0 ]]; then
	BENCH_REF=$REF "$ROOT/scripts/shapes.sh" >&2 || echo "   shapes.sh FAILED" >&2
fi

# --- summary ----------------------------------------------------------------
get() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$OUT/results.tsv"; }
# verdict VALUE OP LIMIT: PASS or MISS (or n/a when not measured)
verdict() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
	if (v == "") { print "n/a"; exit }
	ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 >= l + 0)
	print ok ? "PASS" : "MISS" }'; }
# median of the ns/op (or a named metric) of one benchmark over -count runs
gobench() { # file benchmark-regexp metric
	local f=$OUT/gobench/$1.txt
	[[ -f $f ]] || return 0
	awk -v re="^$2-[0-9]+\$" -v m="$3" '$1 ~ re {
		for (i = 3; i < NF; i++) if ($(i+1) == m) v[++n] = $i }
		END {
			if (!n) exit
			for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			print v[int((n + 1) / 2)]
		}' "$f"
}

py=$(get python_seed_100k 2)
ir=$(get import_rules_100k 2)
ratio=$(awk -v a="$py" -v b="$ir" 'BEGIN { if (b > 0) printf "%.1f", a / b }')
one=$(get import_rules_onepass_100k 2)
ratio1=$(awk -v a="$py" -v b="$one" 'BEGIN { if (b > 0) printf "%.1f", a / b }')
rss100=$(get import_100k 5)
rss1m=$(get import_1m 5)
flat=$(awk -v a="$rss100" -v b="$rss1m" 'BEGIN { if (a > 0 && b != "") printf "%.2f", b / a }')

# duck_summary: triage against DuckDB and the seed's script on the same
# 100k file (issue 21): each one's median round side by side, triage's
# ratio to DuckDB in wall time and peak RSS, the ratio within every round,
# and whether DuckDB's SQL gave the seed script's class counts.
duck_summary() {
	echo "triage vs DuckDB vs the seed's script, 100k rows (median round of $REPEAT; RSS in MiB)"
	if [[ -z $DUCK ]]; then
		echo "  DuckDB: skipped (see the log: npm or node missing, install failed, or BENCH_DUCKDB=0)"
	fi
	local dw dc drss
	cpu() { awk -F'\t' -v n="$1" '$1 == n { printf "%.2f", $3 + $4 }' "$OUT/results.tsv"; }
	dw=$(get duckdb_100k 2)
	dc=$(cpu duckdb_100k)
	drss=$(get duckdb_100k 5)
	printf '  %-44s %7s %7s %9s %10s %9s %9s\n' what wall_s cpu_s maxrss wall/duck cpu/duck rss/duck
	side() { # label step
		local w c m
		w=$(get "$2" 2)
		[[ -n $w ]] || return 0
		c=$(cpu "$2")
		m=$(get "$2" 5)
		printf '  %-44s %7s %7s %9s %10s %9s %9s\n' "$1" "$w" "$c" "$m" \
			"$(awk -v a="$w" -v b="$dw" 'BEGIN { if (b > 0) printf "%.2f", a / b }')" \
			"$(awk -v a="$c" -v b="$dc" 'BEGIN { if (b > 0) printf "%.2f", a / b }')" \
			"$(awk -v a="$m" -v b="$drss" 'BEGIN { if (b > 0) printf "%.2f", a / b }')"
	}
	side "triage import --rules (one pass)" onepass_100k
	side "triage import, then rules run (two commands)" import_rules_100k
	side "DuckDB read_json + seed rules in SQL + file" duckdb_100k
	side "seed_classify.py (classifies, stores nothing)" python_seed_100k
	[[ -n $dw ]] || return 0
	# Within each round, against the DuckDB run beside it.
	local r rounds1="" rounds2=""
	for r in $(seq 1 "$REPEAT"); do
		rounds1+=" $(awk -v a="$(get "onepass_100k_r$r" 2)" -v b="$(get "duckdb_100k_r$r" 2)" 'BEGIN { if (b > 0) printf "%.2f", a / b }')"
		rounds2+=" $(awk -v a="$(get "import_rules_100k_r$r" 2)" -v b="$(get "duckdb_100k_r$r" 2)" 'BEGIN { if (b > 0) printf "%.2f", a / b }')"
	done
	echo "  wall / DuckDB's in each round: one pass$rounds1; two commands$rounds2"
	echo "  (the median rounds are each step's own; the load was $(awk -F'\t' '$1 ~ /_100k_r[0-9]+$/ { if (min == "" || $7 < min) min = $7; if ($7 > max) max = $7 } END { print min "-" max }' "$OUT/results.tsv") on $(nproc) cores: a load above 0 means the wall figures carry other processes' work; user+sys does not)"
	printf '%-46s %14s %14s  %s\n' target measured limit verdict
	local one2 two2
	one2=$(awk -v a="$(get onepass_100k 2)" -v b="$dw" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
	two2=$(awk -v a="$(get import_rules_100k 2)" -v b="$dw" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
	row "one pass wall / DuckDB wall" "$one2" 0.50 "<="
	row "two commands wall / DuckDB wall" "$two2" 0.67 "<="
	row "one pass peak RSS 100k (MiB)" "$(get onepass_100k 5)" 128 "<="
	row "two commands peak RSS 100k (MiB)" "$(get import_rules_100k 5)" 128 "<="
	if [[ -n $(get onepass_1m 5) ]]; then
		row "one pass peak RSS 1M (MiB)" "$(get onepass_1m 5)" 128 "<="
		local two1m
		two1m=$(awk -v a="$(get import_1m 5)" -v b="$(get rules_1m 5)" 'BEGIN { print (a > b) ? a : b }')
		row "two commands peak RSS 1M (MiB)" "$two1m" 128 "<="
		[[ -z $(get duckdb_1m 2) ]] || echo "  DuckDB 1M: $(get duckdb_1m 2) s, $(get duckdb_1m 5) MiB; triage one pass 1M: $(get onepass_1m 2) s; import + rules run 1M: $(get import_1m 2) + $(get rules_1m 2) s"
	fi
	# DuckDB's SQL against the seed's script: class counts, every round.
	local same=yes
	for r in $(seq 1 "$REPEAT"); do
		python3 - "$OUT/log/python_seed_100k_r$r.out" "$OUT/log/duckdb_100k_r$r.out" <<'PY' || same=NO
import json, sys
py = json.loads(open(sys.argv[1]).read().splitlines()[-1])["primary_counts"]
dk = json.loads(open(sys.argv[2]).read().splitlines()[-1])["primary_counts"]
if py != dk:
    print(f"  class counts differ: seed script {py}, DuckDB {dk}")
    sys.exit(1)
PY
	done
	echo "  DuckDB's class counts equal the seed script's in every round: $same ($(tail -n 1 "$OUT/log/duckdb_100k_r1.out"))"
}

{
	echo
	echo "triage $COMMIT on $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(go version | cut -d' ' -f3)"
	echo
	printf '%-22s %8s %8s %8s %8s %9s %4s %6s\n' step wall_s user_s sys_s cpu_s maxrss_MB rc load
	awk -F'\t' '{ cpu = ($3 == "") ? "" : sprintf("%.2f", $3 + $4)
		printf "%-22s %8s %8s %8s %8s %9s %4s %6s\n", $1, $2, $3, $4, cpu, $5, $6, $7 }' "$OUT/results.tsv"
	echo
	printf '%-46s %14s %14s  %s\n' target measured limit verdict
	row() { printf '%-46s %14s %14s  %s\n' "$1" "${2:-n/a}" "$4 $3" "$(verdict "$2" "$4" "$3")"; }
	row "import 100k wall (s)" "$(get import_100k 2)" 1.2 "<="
	row "import 100k max RSS (MB)" "$rss100" 150 "<="
	row "re-import 100k, all duplicates, wall (s)" "$(get reimport_100k 2)" 1.0 "<="
	row "rules run 100k wall (s)" "$(get rules_100k 2)" 1.0 "<="
	row "import + rules 100k wall (s)" "$ir" 1.5 "<="
	row "import + rules vs seed Python (x faster)" "$ratio" 7 ">="
	row "import --rules + rules run 100k wall (s)" "$one" 1.5 "<="
	row "import --rules + rules run vs seed Python (x)" "$ratio1" 7 ">="
	row "import 1M max RSS (MB)" "$rss1m" 150 "<="
	row "import 1M RSS / import 100k RSS (flat)" "$flat" 1.25 "<="
	cr=$(gobench internal_rules BenchmarkClassifySeedRows rows/cpu-s)
	row "rules in memory (rows/cpu-s, one core)" "$cr" 1000000 ">="
	crl=$(gobench internal_rules BenchmarkClassifySeedRowsLarge rows/cpu-s)
	row "rules in memory, 64k rows (rows/cpu-s)" "$crl" 1000000 ">="
	ms() { awk -v v="$1" 'BEGIN { if (v != "") printf "%.1f", v / 1e6 }'; }
	row "agreement 100k units x 3 raters (ms)" "$(ms "$(gobench internal_agreement BenchmarkCompute100k ns/op)")" 200 "<="
	row "agreement + 1000 bootstrap resamples (ms)" "$(ms "$(gobench internal_agreement BenchmarkBootstrap100k ns/op)")" 3000 "<="
	row "TUI first frame, 100k traces, fake store (ms)" "$(ms "$(gobench internal_ui BenchmarkFirstFrame100k ns/op)")" 300 "<="
	msf() { awk -v v="$1" 'BEGIN { if (v != "") printf "%.0f", v * 1000 }'; }
	row "TUI first frame, real 100k store, tmux (ms)" "$(msf "$(get tui_100k_first 2)")" 300 "<="
	row "TUI queue shown, real 100k store, tmux (ms)" "$(msf "$(get tui_100k_queue 2)")" 300 "<="
	row "TUI peak RSS, real 100k store (MB)" "$(get tui_100k_queue 5)" 200 "<="
	row "next trace, typical (ms)" "$(ms "$(gobench internal_ui BenchmarkNextTraceTypical ns/op)")" 30 "<="
	row "next trace, 20,000-line diff (ms)" "$(ms "$(gobench internal_ui BenchmarkNextTraceHugeDiff ns/op)")" 100 "<="
	echo
	duck_summary
	echo
	echo "decoding baselines (MB/s, median of $COUNT):"
	for b in encoding-json-map encoding-json-struct ingest-DecodeRow ingest-jsonl-stream-lite; do
		printf '  %-28s %s\n' "$b" "$(gobench cmd_triage "BenchmarkDecodeRows/$b" MB/s)"
	done
	echo "tool-call storage (ns/trace, disk-B/trace):"
	for b in in-row table; do
		printf '  write %-8s %10s %10s\n' "$b" "$(gobench internal_store "BenchmarkToolCallStorage/$b" ns/trace)" "$(gobench internal_store "BenchmarkToolCallStorage/$b" disk-B/trace)"
		printf '  read  %-8s %10s\n' "$b" "$(gobench internal_store "BenchmarkToolCallRead/$b" ns/trace)"
	done
	printf '  LabelPending (trivial labeller) %s ns/trace\n' "$(gobench internal_store BenchmarkLabelPending ns/trace)"
	echo
	[[ ! -f $OUT/shapes/summary.txt || ${BENCH_SHAPES:-1} == 0 ]] || { echo "shapes (scripts/shapes.sh):"; cat "$OUT/shapes/summary.txt"; echo; }
	echo "load after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "profiles: $OUT/prof/{import,rules}-{top,cum}.txt   raw figures: $OUT/results.tsv"
} | tee "$OUT/summary.txt"
