package ingest

import (
	"testing"

	"github.com/valyala/fastjson"
)

// BenchmarkDecodeImport decodes rows the way import's workers do
// (untrusted, lite): validation, parse and type checks.
func BenchmarkDecodeImport(b *testing.B) {
	rows := benchRows(b)
	b.ReportAllocs()
	d := rowDecoder{lite: true}
	i := 0
	for b.Loop() {
		if _, err := d.decode(rows[i%len(rows)], "bench"); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkValidate compares validJSON with the fastjson validator it
// runs in front of, in bytes per second.
func BenchmarkValidate(b *testing.B) {
	rows := benchRows(b)
	for _, c := range []struct {
		name string
		ok   func([]byte) bool
	}{
		{"validJSON", validJSON},
		{"fastjson", func(r []byte) bool { return fastjson.ValidateBytes(r) == nil }},
	} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for _, r := range rows {
				n += len(r)
			}
			b.SetBytes(int64(n / len(rows)))
			i := 0
			for b.Loop() {
				if !c.ok(rows[i%len(rows)]) {
					b.Fatal("invalid row")
				}
				i++
			}
		})
	}
}
