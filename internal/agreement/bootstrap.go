package agreement

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// Interval is a percentile bootstrap interval for alpha.
type Interval struct {
	// Lo is the lower bound (the 2.5th percentile).
	Lo Value `json:"lo"`
	// Hi is the upper bound (the 97.5th percentile).
	Hi Value `json:"hi"`
	// Level is the coverage, 0.95.
	Level float64 `json:"level"`
	// Resamples is how many resamples were drawn.
	Resamples int `json:"resamples"`
	// UndefinedResamples counts resamples whose alpha was undefined (for
	// example all drawn units in one class); they are left out.
	UndefinedResamples int `json:"undefined_resamples"`
	// Seed reproduces the interval.
	Seed uint64 `json:"seed"`
	// Method names the procedure.
	Method string `json:"method"`
}

const bootstrapMethod = "percentile bootstrap, units with two or more ratings resampled with replacement"

// pattern is one distinct per-unit category count vector. Units with the
// same counts contribute identically to the coincidence matrix, so a
// resample only needs how many times each pattern was drawn: alpha is then
// a weighted sum over patterns and categories, not a recount of ratings.
type pattern struct {
	diag  float64 // Σ_k n_uk(n_uk−1)/(m_u−1)
	cats  []int32
	count []float64
}

// bootstrapAlpha resamples the pairable units with replacement. Resample i
// draws from its own PCG stream (seed, i), so the result is the same
// whatever the number of cores.
func bootstrapAlpha(d *dataset, alpha Value, resamples int, seed uint64) Interval {
	return bootstrapWorkers(d, alpha, resamples, seed, runtime.GOMAXPROCS(0))
}

// bootstrapWorkers is bootstrapAlpha on a given number of goroutines.
func bootstrapWorkers(d *dataset, alpha Value, resamples int, seed uint64, workers int) Interval {
	if resamples == 0 {
		resamples = DefaultResamples
	}
	iv := Interval{Level: 0.95, Seed: seed, Method: bootstrapMethod}
	switch {
	case resamples < 0:
		iv.Lo = Undefined("bootstrap skipped")
		iv.Hi = iv.Lo
		return iv
	case !alpha.OK:
		iv.Lo = Undefined("alpha itself is undefined: " + alpha.Why)
		iv.Hi = iv.Lo
		return iv
	}
	iv.Resamples = resamples
	pats, unitPat := patterns(d)
	k := len(d.cats)
	out := make([]float64, resamples)
	workers = max(1, min(workers, resamples))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			cnt := make([]int32, len(pats))
			nc := make([]float64, k)
			n := uint64(len(unitPat))
			for i := w; i < resamples; i += workers {
				src := rand.NewPCG(seed, uint64(i))
				clear(cnt)
				for range n {
					cnt[unitPat[bounded(src, n)]]++
				}
				clear(nc)
				diag := 0.0
				for p, c := range cnt {
					if c == 0 {
						continue
					}
					fc := float64(c)
					diag += fc * pats[p].diag
					for j, cat := range pats[p].cats {
						nc[cat] += fc * pats[p].count[j]
					}
				}
				a := alphaFrom(diag, nc)
				out[i] = math.NaN()
				if a.OK {
					out[i] = a.V
				}
			}
		})
	}
	wg.Wait()
	vals := out[:0]
	for _, v := range out {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	iv.UndefinedResamples = resamples - len(vals)
	if len(vals) < resamples/2 || len(vals) < 2 {
		iv.Lo = Undefined(strconv.Itoa(iv.UndefinedResamples) + " of " + strconv.Itoa(resamples) +
			" resamples had an undefined alpha (too few units or one class dominating)")
		iv.Hi = iv.Lo
		return iv
	}
	slices.Sort(vals)
	iv.Lo = Defined(quantile(vals, 0.025))
	iv.Hi = Defined(quantile(vals, 0.975))
	return iv
}

// patterns groups the pairable units by their count vectors and returns
// the distinct patterns and, per pairable unit, its pattern index.
func patterns(d *dataset) ([]pattern, []int32) {
	k := len(d.cats)
	cnt := make([]int32, k)
	var seen []int32
	var key []byte
	index := map[string]int32{}
	var pats []pattern
	var unitPat []int32
	for u := range d.units {
		lo, hi := d.start[u], d.start[u+1]
		if hi-lo < 2 {
			continue
		}
		seen = seen[:0]
		for _, c := range d.cat[lo:hi] {
			if cnt[c] == 0 {
				seen = append(seen, c)
			}
			cnt[c]++
		}
		slices.Sort(seen)
		key = key[:0]
		for _, c := range seen {
			key = binary.LittleEndian.AppendUint32(key, uint32(c))
			key = binary.LittleEndian.AppendUint32(key, uint32(cnt[c]))
		}
		p, ok := index[string(key)]
		if !ok {
			m := float64(hi - lo)
			pt := pattern{}
			for _, c := range seen {
				n := float64(cnt[c])
				pt.diag += n * (n - 1) / (m - 1)
				pt.cats = append(pt.cats, c)
				pt.count = append(pt.count, n)
			}
			p = int32(len(pats))
			pats = append(pats, pt)
			index[string(key)] = p
		}
		unitPat = append(unitPat, p)
		for _, c := range seen {
			cnt[c] = 0
		}
	}
	return pats, unitPat
}

// bounded draws uniformly from [0, n) with Lemire's multiply-and-reject.
// It is written out rather than taken from rand.Rand so the stream is fixed
// by this code, not by a library version, keeping intervals reproducible.
func bounded(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// quantile is the linear-interpolation (type 7) quantile of sorted vals.
func quantile(vals []float64, q float64) float64 {
	h := q * float64(len(vals)-1)
	i := int(math.Floor(h))
	if i+1 >= len(vals) {
		return vals[len(vals)-1]
	}
	return vals[i] + (h-float64(i))*(vals[i+1]-vals[i])
}
