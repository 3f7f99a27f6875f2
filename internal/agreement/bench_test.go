package agreement

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// synthetic makes units × raters ratings over k classes: each unit has a
// true class (skewed towards the first classes), and each rater copies it
// with probability agree, else picks a class at random.
func synthetic(units, raters, k int, agree float64, seed uint64) []Rating {
	rng := rand.New(rand.NewPCG(seed, 7))
	cats := make([]string, k)
	for i := range cats {
		cats[i] = fmt.Sprintf("CLASS_%d", i)
	}
	names := make([]string, raters)
	for i := range names {
		names[i] = fmt.Sprintf("rater-%d", i)
	}
	out := make([]Rating, 0, units*raters)
	for u := range units {
		unit := fmt.Sprintf("run-1/task-%06d#0", u)
		truth := min(int(rng.ExpFloat64()*2), k-1)
		for _, r := range names {
			c := truth
			if rng.Float64() > agree {
				c = rng.IntN(k)
			}
			out = append(out, Rating{Unit: unit, Rater: r, Label: cats[c]})
		}
	}
	return out
}

func BenchmarkCompute100k(b *testing.B) {
	ratings := synthetic(100_000, 3, 8, 0.8, 1)
	b.ResetTimer()
	for b.Loop() {
		r, err := Compute(ratings, Options{Resamples: -1})
		if err != nil || !r.KrippendorffAlpha.OK {
			b.Fatal(err, r.KrippendorffAlpha.Why)
		}
	}
}

func BenchmarkBootstrap100k(b *testing.B) {
	ratings := synthetic(100_000, 3, 8, 0.8, 1)
	b.ResetTimer()
	for b.Loop() {
		r, err := Compute(ratings, Options{Resamples: 1000, Seed: 42})
		if err != nil || !r.AlphaCI95.Lo.OK {
			b.Fatal(err, r.AlphaCI95.Lo.Why)
		}
	}
}

func BenchmarkSecondary100k(b *testing.B) {
	ratings := synthetic(100_000, 3, 8, 0.8, 1)
	tags := []string{"flaky", "slow", "spec", "loop", "leak"}
	for i := range ratings {
		ratings[i].HasTags = true
		if i%3 != 0 {
			ratings[i].Tags = []string{tags[i%5], tags[(i/7)%5]}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := Compute(ratings, Options{Resamples: -1})
		if err != nil || r.Secondary == nil {
			b.Fatal(err)
		}
	}
}
