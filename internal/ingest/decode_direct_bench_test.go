package ingest

import (
	"testing"

	"github.com/triage-dev/triage/internal/triage"
)

// BenchmarkDecodeDirect compares the tree decoder with decode as wired
// (the direct pass, deferring to the tree) on the same rows, in each
// mode; ns/op is per row. Within one -count round the two alternate, so
// a noisy neighbour hits both. TRIAGE_BENCH_ROWS names the rows' file.
func BenchmarkDecodeDirect(b *testing.B) {
	rows := benchRows(b)
	size := 0
	for _, r := range rows {
		size += len(r)
	}
	for _, m := range decodeModes {
		b.Run(m.name, func(b *testing.B) {
			for _, path := range []struct {
				name   string
				decode func(*rowDecoder, []byte) (*triage.Trace, error)
			}{
				{"tree", func(d *rowDecoder, r []byte) (*triage.Trace, error) { return d.decodeTree(r, "bench") }},
				{"direct", func(d *rowDecoder, r []byte) (*triage.Trace, error) { return d.decode(r, "bench") }},
			} {
				b.Run(path.name, func(b *testing.B) {
					d := &rowDecoder{lite: m.lite, trusted: m.trusted}
					b.SetBytes(int64(size / len(rows)))
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						if _, err := path.decode(d, rows[i%len(rows)]); err != nil {
							b.Fatal(err)
						}
						i++
					}
				})
			}
		})
	}
}
