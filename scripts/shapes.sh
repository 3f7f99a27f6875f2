#!/usr/bin/env bash
# scripts/shapes.sh: the same rows spread as teams accumulate them (issue
# 27): triage's cost must grow with the rows, not with how they spread over
# runs and tasks. Each shape is measured side by side with DuckDB and the
# seed's script in the same run, and, when BENCH_BASE names a commit, with
# that commit's build alternated step by step.
#
#   scripts/shapes.sh                        # 100k of each shape, 1M of the first two
#   SHAPES_1M=0 scripts/shapes.sh            # 100k only (about 3 minutes)
#   BENCH_BASE=8104906 scripts/shapes.sh     # the same steps with that build beside
#   BENCH_REF=worktree scripts/shapes.sh     # measure uncommitted code
#
# The shapes (gentraces -runs R -tasks T):
#   one-run    one run, 1,000 tasks, seeds as many as the rows need
#   nightly    2,000 runs × 50 tasks (a nightly suite over months)
#   wide       one run, a task a row (a large benchmark, one attempt each; 100k only)
# Per shape and size: import, rules run, report --json, clusters --json,
# traces --json, the review screen at 100k (tmux; BENCH_TUI=0 skips it),
# import --rules (one pass), DuckDB's one pass and the seed's script; the summary gives each step's wall, CPU and peak RSS, each shape's
# rules run against the fastest shape's, the one pass against DuckDB and
# import + rules against the seed's script, and the peak RSS of every
# command against 128 MiB. bench.sh runs it too (BENCH_SHAPES=0 skips it).
# Outputs go to bench-out/shapes/ (git-ignored); summary.txt is the table.
set -euo pipefail

if [[ ! -f go.mod || ! -d cmd/triage ]]; then
	echo "shapes.sh: run me from the repository root (scripts/shapes.sh)" >&2
	exit 2
fi
for tool in /usr/bin/time python3 go git; do
	command -v "$tool" >/dev/null || { echo "shapes.sh: $tool is required" >&2; exit 2; }
done

ROOT=$PWD
OUT=$ROOT/bench-out/shapes
REF=${BENCH_REF:-HEAD}
mkdir -p "$OUT"/{bin,data,db,time,log}
: >"$OUT/results.tsv"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

build_ref
BINS=("new=$TRIAGE")
if [[ -n ${BENCH_BASE:-} ]]; then
	base_src=$OUT/src-base
	rm -rf "$base_src"
	mkdir -p "$base_src"
	git archive "$BENCH_BASE" | tar -x -C "$base_src"
	(cd "$base_src" && go build -o "$OUT/bin/triage-base" ./cmd/triage)
	BINS+=("base=$OUT/bin/triage-base")
	log "beside $(git rev-parse --short "$BENCH_BASE") (base)"
fi
duck_setup

# shape NAME N RUNS TASKS: the rows of one shape (RUNS 0: one unnamed run).
shape_file() {
	local name=$1 n=$2 runs=$3 tasks=$4 file stamp
	file=$OUT/data/$name.jsonl
	stamp="$(sha256sum "$OUT/bin/gentraces" | cut -c1-16) $n $runs $tasks"
	if [[ ! -f $file || ! -f $file.stamp || $(cat "$file.stamp") != "$stamp" ]]; then
		log "generating $name: gentraces -n $n -runs $runs -tasks $tasks"
		"$OUT/bin/gentraces" -n "$n" -seed 1 -runs "$runs" -tasks "$tasks" -o "$file"
		echo "$stamp" >"$file.stamp"
	fi
	echo "$file"
}

SHAPES=("one-run 0 1000" "nightly 2000 50" "wide 0 0")
SIZES=(100000)
[[ ${SHAPES_1M:-1} == 0 ]] || SIZES+=(1000000)
for n in "${SIZES[@]}"; do
	sz=$( ((n == 1000000)) && echo 1m || echo 100k)
	for sh in "${SHAPES[@]}"; do
		read -r name runs tasks <<<"$sh"
		((tasks > 0)) || tasks=$n
		if [[ $name == wide && $sz == 1m ]]; then continue; fi
		f=$(shape_file "$name-$sz" "$n" "$runs" "$tasks")
		for b in "${BINS[@]}"; do
			tag=${b%%=*} bin=${b#*=}
			db=$OUT/db/$tag.db
			p=${tag}_${name}_${sz}
			fresh "$db"
			measure "${p}_import" "$bin" --db "$db" import "$f"
			measure "${p}_rules" "$bin" --db "$db" rules run
			measure "${p}_report" "$bin" --db "$db" report --json
			measure "${p}_clusters" "$bin" --db "$db" clusters --json
			measure "${p}_traces" "$bin" --db "$db" traces --json
			# The review screen on the labelled store (scripts/lib.sh's
			# tui): first frame, the queue, a trace opened, next-trace keys.
			if [[ $sz == 100k && ${BENCH_TUI:-1} != 0 ]]; then
				keep=$TRIAGE
				TRIAGE=$bin tui "${p}_tui" "$db"
				TRIAGE=$keep
			fi
			fresh "$db"
			measure "${p}_onepass" "$bin" --db "$db" import --rules "$f"
			fresh "$db"
		done
		[[ -z $DUCK ]] || duck "duckdb_${name}_${sz}" "$f"
		measure "python_seed_${name}_${sz}" python3 "$SRC/testdata/rules/seed_classify.py" "$f"
	done
done

# --- summary ----------------------------------------------------------------
get() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$OUT/results.tsv"; }
cpu() { awk -F'\t' -v n="$1" '$1 == n { printf "%.2f", $3 + $4 }' "$OUT/results.tsv"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b }'; }
{
	echo
	echo "triage $COMMIT on $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ); load before the run: $(cut -d' ' -f1 /proc/loadavg) (a shared machine: compare within a run)"
	for n in "${SIZES[@]}"; do
		sz=$( ((n == 1000000)) && echo 1m || echo 100k)
		for b in "${BINS[@]}"; do
			tag=${b%%=*}
			echo
			echo "$tag, $sz rows: wall s / CPU s / peak RSS MiB"
			printf '  %-9s %-19s %-19s %-19s %-19s %-19s %-19s\n' shape import "rules run" "report --json" "clusters --json" "traces --json" "import --rules"
			fastest="" fastest_cpu=""
			for sh in "${SHAPES[@]}"; do
				read -r name _ _ <<<"$sh"
				w=$(get "${tag}_${name}_${sz}_rules" 2)
				[[ -z $w ]] && continue
				c=$(cpu "${tag}_${name}_${sz}_rules")
				if [[ -z $fastest ]] || awk -v a="$w" -v b="$fastest" 'BEGIN { exit !(a < b) }'; then fastest=$w; fi
				if [[ -z $fastest_cpu ]] || awk -v a="$c" -v b="$fastest_cpu" 'BEGIN { exit !(a < b) }'; then fastest_cpu=$c; fi
			done
			for sh in "${SHAPES[@]}"; do
				read -r name _ _ <<<"$sh"
				p=${tag}_${name}_${sz}
				[[ -n $(get "${p}_import" 2) ]] || continue
				line=$(printf '  %-9s' "$name")
				for s in import rules report clusters traces onepass; do
					line+=$(printf ' %-19s' "$(get "${p}_$s" 2)/$(cpu "${p}_$s")/$(get "${p}_$s" 5)")
				done
				echo "$line"
			done
			for sh in "${SHAPES[@]}"; do
				read -r name _ _ <<<"$sh"
				p=${tag}_${name}_${sz}
				[[ -n $(get "${p}_tui_first" 2) ]] || continue
				printf '  %-9s review: first frame %s s, first page %s s, queue %s s (%s MiB), a trace opened %s s, next trace %s s\n' "$name" \
					"$(get "${p}_tui_first" 2)" "$(get "${p}_tui_page" 2)" "$(get "${p}_tui_queue" 2)" "$(get "${p}_tui_queue" 5)" "$(get "${p}_tui_open" 2)" "$(get "${p}_tui_next" 2)"
			done
			echo "  targets:"
			for sh in "${SHAPES[@]}"; do
				read -r name _ _ <<<"$sh"
				p=${tag}_${name}_${sz}
				[[ -n $(get "${p}_import" 2) ]] || continue
				ir=$(awk -v a="$(get "${p}_import" 2)" -v b="$(get "${p}_rules" 2)" 'BEGIN { print a + b }')
				maxrss=0
				for s in import rules report clusters traces onepass; do
					maxrss=$(awk -v a="$maxrss" -v b="$(get "${p}_$s" 5)" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
				done
				printf '  %-9s rules run / fastest shape %s (≤ 1.5); one pass / DuckDB %s (≤ 0.5; DuckDB %s s, %s MiB); seed script / (import + rules) %s (≥ 7; seed %s s); largest peak RSS %s MiB (≤ 128)\n' \
					"$name" "$(div "$(get "${p}_rules" 2)" "$fastest")" "$(div "$(get "${p}_onepass" 2)" "$(get "duckdb_${name}_${sz}" 2)")" \
					"$(get "duckdb_${name}_${sz}" 2)" "$(get "duckdb_${name}_${sz}" 5)" \
					"$(div "$(get "python_seed_${name}_${sz}" 2)" "$ir")" "$(get "python_seed_${name}_${sz}" 2)" "$maxrss"
				# The same ratios in CPU seconds (user + sys), which other
				# work on a shared machine colours less than the wall.
				irc=$(awk -v a="$(cpu "${p}_import")" -v b="$(cpu "${p}_rules")" 'BEGIN { print a + b }')
				printf '  %-9s in CPU s: rules run / fastest shape %s; one pass / DuckDB %s; seed script / (import + rules) %s\n' "$name" \
					"$(div "$(cpu "${p}_rules")" "$fastest_cpu")" "$(div "$(cpu "${p}_onepass")" "$(cpu "duckdb_${name}_${sz}")")" \
					"$(div "$(cpu "python_seed_${name}_${sz}")" "$irc")"
			done
		done
	done
	echo
	echo "load after the run: $(cut -d' ' -f1-3 /proc/loadavg); raw figures: $OUT/results.tsv"
} | tee "$OUT/summary.txt"
