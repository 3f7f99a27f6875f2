#!/bin/bash
# clusters_compare.sh OLD NEW [OUTDIR]: runs every `clusters` case (text, --json, --members 0/50,
# --redact, --run/--baseline, two --runs, usage errors) with both builds on copies of the 100k
# stores and a store of the real logs in /tmp/c2 (see docs/PERFORMANCE.md, issue 27, "clusters
# streamed"), and diffs stdout, stderr and the exit code.
old=$1 new=$2 out=${3:-/tmp/c2/cmp}
rm -rf $out; mkdir -p $out
fail=0
cases() {
  local db=$1; shift
  echo "$db|clusters"
  echo "$db|clusters --json"
  echo "$db|clusters --members 0"
  echo "$db|clusters --members 50"
  echo "$db|clusters --redact"
  echo "$db|clusters --redact --json"
  for extra in "$@"; do echo "$db|clusters $extra"; echo "$db|clusters $extra --json"; done
}
{
  cases /tmp/c2/one.db "--run one" "--run one --members 0 --redact"
  cases /tmp/c2/wide.db "--run wide"
  cases /tmp/c2/nightly.db "--run R001 --baseline R000" "--run R001 --run R002" "--run R005 --run R007 --baseline R006" "--baseline R000"
  cases /tmp/c2/rl.db "--run aider --baseline live-gpt5mini" "--run live-gpt5mini --baseline aider" "--run live-gpt5mini --run gemini3pro" "--run openhands --run swe-smith --baseline multi-swe-bench" "--baseline aider" "--run nosuch" "--run aider --run aider"
} > $out/cases
i=0
while IFS='|' read -r db args; do
  i=$((i+1))
  for b in old new; do
    bin=$old; [ $b = new ] && bin=$new
    $bin --db $db $args > $out/$i.$b.out 2> $out/$i.$b.err; echo $? > $out/$i.$b.rc
  done
  if cmp -s $out/$i.old.out $out/$i.new.out && cmp -s $out/$i.old.err $out/$i.new.err && cmp -s $out/$i.old.rc $out/$i.new.rc; then
    echo "same  $i $db $args ($(wc -c < $out/$i.old.out) bytes, rc $(cat $out/$i.old.rc))"
  else
    echo "DIFF  $i $db $args"; fail=1
  fi
done < $out/cases
exit $fail
