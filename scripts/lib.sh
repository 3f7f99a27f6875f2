# scripts/lib.sh: helpers shared by bench.sh and scale.sh. Source it after
# setting ROOT, OUT (the output directory) and REF; it defines build_ref,
# gen, measure, fresh, tui, log, duck_setup and duck.

# build_ref exports the commit REF (HEAD by default; "worktree" for the
# working tree as it is) into $OUT/src with git archive, so that other
# people's uncommitted work neither breaks nor colours the figures, and
# builds triage and gentraces into $OUT/bin. Sets SRC, COMMIT and TRIAGE.
build_ref() {
	if [[ $REF == worktree ]]; then
		SRC=$ROOT
		COMMIT="$(git rev-parse --short HEAD)+worktree"
	else
		COMMIT=$(git rev-parse --short "$REF")
		SRC=$OUT/src
		rm -rf "$SRC"
		mkdir -p "$SRC"
		git archive "$REF" | tar -x -C "$SRC"
	fi
	log "measuring $COMMIT (source: $SRC)"
	(cd "$SRC" && go build -o "$OUT/bin/triage" ./cmd/triage && go build -o "$OUT/bin/gentraces" ./cmd/gentraces)
	TRIAGE=$OUT/bin/triage
}

# gentraces is deterministic; a stamp of its binary's hash decides whether
# an existing file is still what this commit's generator writes.
gen() { # rows file
	local n=$1 file=$2 stamp
	stamp="$(sha256sum "$OUT/bin/gentraces" | cut -c1-16) $n"
	if [[ -f $file && -f $file.stamp && $(cat "$file.stamp") == "$stamp" ]]; then
		return
	fi
	log "generating $n rows: gentraces -n $n -seed 1 -o $file"
	"$OUT/bin/gentraces" -n "$n" -seed 1 -o "$file"
	echo "$stamp" >"$file.stamp"
}

log() { printf '\n== %s\n' "$*" >&2; }

# measure NAME CMD...: run CMD under /usr/bin/time -v; stdout and stderr go
# to log/NAME.{out,err}; one line of results.tsv: name, wall s, user s,
# sys s, max RSS MB, exit status, and the 1-minute load average when the
# step started (the machine may be shared: a load above 0 means the wall
# figures carry other processes' work; user+sys does not).
measure() {
	local name=$1 rc=0 load
	shift
	log "$name: $*"
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -v -o "$OUT/time/$name.txt" "$@" >"$OUT/log/$name.out" 2>"$OUT/log/$name.err" || rc=$?
	awk -v name="$name" -v rc="$rc" -v load="$load" -F': ' '
		/Elapsed \(wall clock\)/ {
			n = split($2, p, ":"); wall = 0
			for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
		}
		/User time/ { user = $2 }
		/System time/ { sys = $2 }
		/Maximum resident set size/ { rss = $2 / 1024 }
		END { printf "%s\t%.2f\t%.2f\t%.2f\t%.1f\t%s\t%s\n", name, wall, user, sys, rss, rc, load }
	' "$OUT/time/$name.txt" | tee -a "$OUT/results.tsv" >&2
	tail -n 3 "$OUT/log/$name.out" >&2 || true
	tail -n 3 "$OUT/log/$name.err" >&2 || true
}

fresh() { rm -f "$1" "$1-wal" "$1-shm"; }

# tui NAME DB: `triage review` on DB in a 120x40 tmux pane, polled every
# 10 ms: launch to first frame (the header), to the queue's first page
# (shown while the rest loads), to the whole queue (the header counts the
# leftovers), then Enter on the first leftover to
# its trace screen (the tab bar), the median of five next-trace keys (l)
# to the header's new position, and the process's peak RSS (VmHWM).
# Appends NAME_first, NAME_page, NAME_queue, NAME_open and NAME_next lines to
# results.tsv (wall column only; RSS on the queue line).
tui() {
	local name=$1 db=$2 sess=triage-bench-$$ start first_ms="" page_ms="" queue_ms="" open_ms="" pane now pid hwm load t0
	command -v tmux >/dev/null || return 0
	log "$name: review TUI on $db (tmux, 120x40)"
	load=$(cut -d' ' -f1 /proc/loadavg)
	start=$(date +%s%N)
	tmux new-session -d -s "$sess" -x 120 -y 40 "$TRIAGE --db $db review --reviewer bench"
	for _ in $(seq 1 6000); do
		pane=$(tmux capture-pane -p -t "$sess" 2>/dev/null || true)
		now=$(( ($(date +%s%N) - start) / 1000000 ))
		if [[ -z $first_ms ]] && grep -Eq 'labelled|loading the queue' <<<"$pane"; then first_ms=$now; fi
		if [[ -z $page_ms ]] && grep -Eq 'its first [0-9]+ shown|of [0-9]+ labelled' <<<"$pane"; then page_ms=$now; fi
		if grep -Eq 'of [1-9][0-9]* labelled' <<<"$pane"; then queue_ms=$now; break; fi
		sleep 0.01
	done
	if [[ -n $queue_ms ]]; then
		t0=$(date +%s%N)
		tmux send-keys -t "$sess" Enter
		for _ in $(seq 1 1000); do
			pane=$(tmux capture-pane -p -t "$sess" 2>/dev/null || true)
			if grep -q 'Evidence' <<<"$pane"; then open_ms=$(( ($(date +%s%N) - t0) / 1000000 )); break; fi
			sleep 0.005
		done
	fi
	# Next trace (l), five times: keypress to the header's new position.
	local nexts=() k
	if [[ -n $open_ms ]]; then
		for k in 2 3 4 5 6; do
			t0=$(date +%s%N)
			tmux send-keys -t "$sess" l
			for _ in $(seq 1 1000); do
				if tmux capture-pane -p -t "$sess" 2>/dev/null | head -n 1 | grep -q " $k/[0-9]"; then
					nexts+=($(( ($(date +%s%N) - t0) / 1000000 )))
					break
				fi
				sleep 0.002
			done
		done
	fi
	sleep 0.5
	pid=$(tmux display-message -p -t "$sess" '#{pane_pid}' 2>/dev/null || true)
	hwm=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$pid/status" 2>/dev/null || true)
	tmux capture-pane -p -t "$sess" >"$OUT/log/$name.txt" 2>/dev/null || true
	tmux send-keys -t "$sess" q 2>/dev/null || true
	sleep 0.3
	tmux kill-session -t "$sess" 2>/dev/null || true
	secs() { awk -v m="$1" 'BEGIN { if (m != "") printf "%.2f", m / 1000 }'; }
	ok() { [[ -n $1 ]] && echo 0 || echo timeout; }
	printf '%s_first\t%s\t\t\t\t%s\t%s\n' "$name" "$(secs "$first_ms")" "$(ok "$first_ms")" "$load" | tee -a "$OUT/results.tsv" >&2
	printf '%s_page\t%s\t\t\t\t%s\t%s\n' "$name" "$(secs "$page_ms")" "$(ok "$page_ms")" "$load" | tee -a "$OUT/results.tsv" >&2
	printf '%s_queue\t%s\t\t\t%s\t%s\t%s\n' "$name" "$(secs "$queue_ms")" "${hwm:-}" "$(ok "$queue_ms")" "$load" | tee -a "$OUT/results.tsv" >&2
	printf '%s_open\t%s\t\t\t\t%s\t%s\n' "$name" "$(secs "$open_ms")" "$(ok "$open_ms")" "$load" | tee -a "$OUT/results.tsv" >&2
	# median of the five next-trace latencies (the tmux poll adds a few ms)
	local next_ms=""
	if ((${#nexts[@]} == 5)); then
		next_ms=$(printf '%s\n' "${nexts[@]}" | sort -n | sed -n 3p)
	fi
	printf '%s_next\t%s\t\t\t\t%s\t%s\n' "$name" "$(secs "$next_ms")" "$(ok "$next_ms")" "$load" | tee -a "$OUT/results.tsv" >&2
}

# duck_setup: what a user would pick instead of triage. DuckDB through its
# Node API reads the same rows with read_json, applies the seed's rules in
# SQL and keeps the tables in a DuckDB file (scripts/duckdb_seed.cjs). It
# installs @duckdb/node-api once with npm into a cache folder outside the
# repository and sets DUCK to its node_modules, or leaves DUCK empty with a
# message (BENCH_DUCKDB=0, no npm or node, or a failed install).
duck_setup() {
	DUCKDB_VERSION=1.5.6-r.1
	DUCK=""
	if [[ ${BENCH_DUCKDB:-1} == 0 ]]; then
		log "DuckDB: skipped (BENCH_DUCKDB=0)"
	elif ! command -v npm >/dev/null || ! command -v node >/dev/null; then
		log "DuckDB: skipped, npm or node is missing (the comparison of issue 21 needs @duckdb/node-api from npm)"
	else
		DUCK_DIR=${BENCH_DUCKDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/triage-bench/duckdb-$DUCKDB_VERSION}
		if [[ ! -f $DUCK_DIR/node_modules/@duckdb/node-api/package.json ]]; then
			log "DuckDB: npm install --prefix $DUCK_DIR @duckdb/node-api@$DUCKDB_VERSION"
			mkdir -p "$DUCK_DIR"
			npm install --prefix "$DUCK_DIR" --no-audit --no-fund --no-save "@duckdb/node-api@$DUCKDB_VERSION" >&2 ||
				log "DuckDB: skipped, npm install failed"
		fi
		if [[ -f $DUCK_DIR/node_modules/@duckdb/node-api/package.json ]]; then
			DUCK=$DUCK_DIR/node_modules
		fi
	fi
}

# duck NAME ROWS: one DuckDB run under measure, on a fresh DuckDB file.
duck() {
	local db=$OUT/db/$1.duckdb
	rm -f "$db" "$db.wal"
	measure "$1" env DUCKDB_NODE_MODULES="$DUCK" node "$ROOT/scripts/duckdb_seed.cjs" "$2" "$db"
	rm -f "$db" "$db.wal"
}
