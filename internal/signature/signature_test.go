package signature

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/timingtest"
	"github.com/triage-dev/triage/internal/triage"
)

func TestTemplate(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`'Client' object has no attribute 'get_invoice_v2'`:                             `<q> object has no attribute <q>`,
		`"Api" object has no attribute "fetch"`:                                         `<q> object has no attribute <q>`,
		`<Foo object at 0x7f3a2b1c9d40> is not JSON serializable`:                       `<Foo object at <hex>> is not JSON serializable`,
		`No such file: /tmp/pytest-of-root/pytest-12/test_a0/x.py`:                      `No such file: <tmp>`,
		`timed out at 2026-03-01T12:34:56.789Z after 30 s`:                              `timed out at <ts> after <n> s`,
		`at 12:01:02 retry 3 of 5`:                                                      `at <ts> retry <n> of <n>`,
		`commit 3f2a9b1c4d5e6f70 not found`:                                             `commit <hex> not found`,
		`id 123e4567-e89b-12d3-a456-426614174000 unknown`:                               `id <uuid> unknown`,
		`path /v2/invoices is not in the frozen spec`:                                   `path /v2/invoices is not in the frozen spec`,
		"bash called 5 times in a row (calls 3, 4, 5, 6, 7)":                            "bash called <n> times in a row (calls <n>)",
		`'ascii' codec can't decode byte 0xc3 in position 83`:                           `<q> codec can't decode byte <hex> in position <n>`,
		"unclosed 'quote here":                                                          "unclosed 'quote here",
		"curly ‘name’ and “text” and `tick`":                                            "curly <q> and <q> and <q>",
		"no 'quote\nacross' lines":                                                      "no <q> lines",
		"3rd try at v2 took 1.5x":                                                       "3rd try at v2 took 1.5x",
		"  many \t  spaces\n here ":                                                     "many spaces here",
		`404 Client Error: Not Found for url: http://localhost:8080/v2/invoices?id=123`: `<n> Client Error: Not Found for url: http://localhost:<n>/v2/invoices?id=<n>`,
	}
	for in, want := range cases {
		require.Equal(t, want, Template(in), "Template(%q)", in)
	}
	require.Empty(t, Template("   "))
	for in := range cases {
		once := Template(in)
		require.Equal(t, once, Template(once), "idempotent on %q", in)
	}
	long := Template(string(make([]byte, 5000)))
	require.LessOrEqual(t, len(long), maxTemplate+len("…"))
}

// FuzzTemplate: any text gives a bounded, idempotent template.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"'a' 0x1f 2026-01-02T03:04:05Z /tmp/x 12, 13", "“x", "\xff'\x00'", "123e4567-e89b-12d3-a456-426614174000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Template(s)
		require.LessOrEqual(t, len(out), maxTemplate+len("…"))
		if !strings.HasSuffix(out, "…") {
			require.Equal(t, out, Template(out))
		}
	})
}

func TestOfReadsTheLastFailure(t *testing.T) {
	t.Parallel()
	p := plant("run-a", 3, []int{0})
	s := Of(p.tr, p.v)
	require.Equal(t, Version, s.Version)
	require.Equal(t, triage.ScorerRed, s.Primary)
	require.NotNil(t, s.Error)
	require.Equal(t, "AttributeError", s.Error.Type)
	require.Equal(t, "<q> object has no attribute <q>", s.Error.Template)
	require.Equal(t, []string{"tests/test_client.py::test_get_invoice"}, s.Tests)
	require.Contains(t, s.Evidence, "SCORER_RED: submitted after the project's tests failed at step <n>")
	require.Equal(t, "s", s.Shape[len(s.Shape)-1:], "ends in a submit: %s", s.Shape)
	require.Contains(t, s.Name(), "AttributeError: <q> object has no attribute <q>")
	require.Empty(t, s.Unclusterable())

	// The scorer's report names the failing tests, parameters templated.
	k := plant("run-a", 1, []int{1})
	ks := Of(k.tr, k.v)
	require.Equal(t, []string{"tests/test_totals.py::test_total[case-<n>]"}, ks.Tests)
	require.Nil(t, ks.Error, "the scorer's failing tests are what remained, not the KeyError the agent hit before its last edit")

	// Test output read when there is no scorer report.
	out := "F.\nFAILED tests/test_x.py::test_one - assert 1 == 2\nERROR: test_two (pkg.tests.TestY)\n--- FAIL: TestZ (0.00s)\n"
	tr := &triage.Trace{TestOutput: &out}
	require.Equal(t, []string{"TestZ", "pkg.tests.TestY.test_two", "tests/test_x.py::test_one"}, Of(tr, nil).Tests)
}

func TestNoFailingOutputStillHasASignature(t *testing.T) {
	t.Parallel()
	p := plant("run-a", 0, []int{7}) // answer only, no tool call
	s := Of(p.tr, p.v)
	require.Nil(t, s.Error)
	require.Empty(t, s.Tests)
	require.Empty(t, s.Unclusterable(), "the rules' evidence is a signature")
	require.Contains(t, s.Name(), "no tool was called")

	// Nothing at all: unclusterable, with the reason.
	empty := Of(&triage.Trace{RunID: "r", TaskID: "t"}, nil)
	require.Contains(t, empty.Unclusterable(), "rules run")
	require.Contains(t, empty.Name(), "unlabelled")
}

func TestSignatureJSON(t *testing.T) {
	t.Parallel()
	p := plant("run-a", 5, []int{0})
	b, err := json.Marshal(Of(p.tr, p.v))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"version", "primary", "secondary", "evidence", "error", "tests", "shape", "steps"} {
		require.Contains(t, m, k)
	}
}

func TestSimilarity(t *testing.T) {
	t.Parallel()
	a := Of(plant("r", 1, []int{0}).tr, plant("r", 1, []int{0}).v)
	b := Of(plant("r", 2, []int{0}).tr, plant("r", 2, []int{0}).v)
	c := Of(plant("r", 3, []int{8}).tr, plant("r", 3, []int{8}).v)
	require.InDelta(t, 1, Similarity(&a, &a), 1e-9)
	require.GreaterOrEqual(t, Similarity(&a, &b), Threshold, "same cause, other details")
	require.Less(t, Similarity(&a, &c), Threshold, "same claim, other exception and tests")
	require.InDelta(t, Similarity(&a, &c), Similarity(&c, &a), 1e-12)
}

// clusterPlanted clusters planted traces and returns each trace's cluster.
func clusterPlanted(ps []planted) ([]int, []Group) {
	c := NewClusterer()
	sig := make([]int, len(ps))
	for i, p := range ps {
		sig[i] = c.Add(Of(p.tr, p.v))
	}
	groups, of := c.Cluster()
	out := make([]int, len(ps))
	for i := range ps {
		out[i] = of[sig[i]]
	}
	return out, groups
}

// adjustedRand is the adjusted Rand index of two labelings (Hubert and
// Arabie 1985): 1 for identical partitions, about 0 for chance.
func adjustedRand(x, y []int) float64 {
	type pair struct{ a, b int }
	n := len(x)
	nij := map[pair]int{}
	ai, bj := map[int]int{}, map[int]int{}
	for i := range n {
		nij[pair{x[i], y[i]}]++
		ai[x[i]]++
		bj[y[i]]++
	}
	c2 := func(k int) float64 { return float64(k) * float64(k-1) / 2 }
	var sij, sa, sb float64
	for _, v := range nij {
		sij += c2(v)
	}
	for _, v := range ai {
		sa += c2(v)
	}
	for _, v := range bj {
		sb += c2(v)
	}
	exp := sa * sb / c2(n)
	return (sij - exp) / ((sa+sb)/2 - exp)
}

// TestPlantedCausesRecovered is issue 19's first target: on failing
// traces planted from known causes with volatile details varied, the
// clusters recover the causes with an adjusted Rand index of at least 0.9.
func TestPlantedCausesRecovered(t *testing.T) {
	t.Parallel()
	var ps []planted
	for i := range 3000 {
		ps = append(ps, plant("run-b", i, newerCauses()))
	}
	got, groups := clusterPlanted(ps)
	truth := make([]int, len(ps))
	for i, p := range ps {
		truth[i] = p.cause
	}
	ari := adjustedRand(truth, got)
	t.Logf("ARI %.4f over %d traces, %d causes, %d clusters", ari, len(ps), len(causes), len(groups))
	require.GreaterOrEqual(t, ari, 0.9)
	for g := 1; g < len(groups); g++ {
		require.GreaterOrEqual(t, groups[g-1].Size, groups[g].Size, "largest first")
	}
}

// novelty clusters a baseline and a newer run together and reports, for
// the newer run's traces of the novel cause and of the others, the share
// flagged novel (in a cluster with no baseline trace).
func novelty(nBase, nNew int) (novelRate, othersRate float64) {
	var ps []planted
	for i := range nBase {
		ps = append(ps, plant("run-a", i, baselineCauses()))
	}
	for i := range nNew {
		ps = append(ps, plant("run-b", i, newerCauses()))
	}
	got, groups := clusterPlanted(ps)
	hasBase := make([]bool, len(groups))
	for i, p := range ps {
		if p.tr.RunID == "run-a" {
			hasBase[got[i]] = true
		}
	}
	var novelN, novelHit, otherN, otherHit int
	for i, p := range ps {
		if p.tr.RunID != "run-b" {
			continue
		}
		flagged := !hasBase[got[i]]
		if p.cause == novelCause {
			novelN++
			if flagged {
				novelHit++
			}
		} else {
			otherN++
			if flagged {
				otherHit++
			}
		}
	}
	return float64(novelHit) / float64(novelN), float64(otherHit) / float64(otherN)
}

// TestNovelCauseFlagged is the second target: a cause present only in the
// newer run is flagged novel for at least 90 % of its traces, with at most
// 5 % of the other traces flagged.
func TestNovelCauseFlagged(t *testing.T) {
	t.Parallel()
	novel, others := novelty(2000, 2000)
	t.Logf("novel cause flagged %.1f%%, others flagged %.2f%%", 100*novel, 100*others)
	require.GreaterOrEqual(t, novel, 0.9)
	require.LessOrEqual(t, others, 0.05)
}

func TestClusterIgnoresAddOrder(t *testing.T) {
	t.Parallel()
	var ps []planted
	for i := range 500 {
		ps = append(ps, plant("run-b", i, newerCauses()))
	}
	a, ga := clusterPlanted(ps)
	r := rand.New(rand.NewPCG(1, 2))
	perm := r.Perm(len(ps))
	shuffled := make([]planted, len(ps))
	for i, j := range perm {
		shuffled[i] = ps[j]
	}
	b, gb := clusterPlanted(shuffled)
	require.Equal(t, len(ga), len(gb))
	for i, j := range perm {
		require.Equal(t, a[j], b[i], "trace %d", j)
	}
}

// bigSignatures makes n signatures of planted traces. With spread, one
// trace in two also fails a test of its own among n/4, so about half the
// signatures are distinct: the hard case for clustering, where most
// signatures are compared instead of counted.
func bigSignatures(n int, spread bool) []Signature {
	const base = 4096
	seed := make([]Signature, base)
	for i := range seed {
		p := plant("run-b", i, newerCauses())
		seed[i] = Of(p.tr, p.v)
	}
	sigs := make([]Signature, n)
	for i := range n {
		sigs[i] = seed[i%base]
		if spread && i%2 == 0 {
			sigs[i].Tests = append(slices.Clone(sigs[i].Tests), fmt.Sprintf("tests/test_m%d.py::test_case", (i*7919)%(n/4)))
		}
	}
	return sigs
}

// BenchmarkCluster100k clusters 100,000 failing traces' signatures (issue
// 19: ≤ 2 s and ≤ 200 MB on 2 cores). The signatures are computed first;
// BenchmarkOf measures that step per trace.
func BenchmarkCluster100k(b *testing.B) {
	for _, spread := range []bool{false, true} {
		sigs := bigSignatures(100_000, spread)
		b.Run(map[bool]string{false: "few-distinct", true: "half-distinct"}[spread], func(b *testing.B) {
			runtime.GC()
			var distinct, groups int
			for b.Loop() {
				c := NewClusterer()
				for i := range sigs {
					c.Add(sigs[i])
				}
				g, _ := c.Cluster()
				distinct, groups = c.Len(), len(g)
			}
			b.ReportMetric(float64(distinct), "distinct")
			b.ReportMetric(float64(groups), "clusters")
		})
	}
}

// BenchmarkOf is the signature of one planted failing trace.
func BenchmarkOf(b *testing.B) {
	ps := make([]planted, 1024)
	for i := range ps {
		ps[i] = plant("run-b", i, newerCauses())
	}
	i := 0
	for b.Loop() {
		p := ps[i%len(ps)]
		_ = Of(p.tr, p.v)
		i++
	}
}

// TestCluster100kFast keeps the clustering of 100,000 signatures well
// inside issue 19's 2 s (the benchmark has the figure); skipped with
// -short.
func TestCluster100kFast(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	sigs := bigSignatures(100_000, true)
	timingtest.Within(t, func() string {
		start := time.Now()
		c := NewClusterer()
		for i := range sigs {
			c.Add(sigs[i])
		}
		groups, _ := c.Cluster()
		took := time.Since(start)
		t.Logf("100k signatures: %d distinct, %d clusters in %v", c.Len(), len(groups), took)
		if took >= 2*time.Second {
			return fmt.Sprintf("clustering 100k: %v, budget 2s", took)
		}
		return ""
	})
}
