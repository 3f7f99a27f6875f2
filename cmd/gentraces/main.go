// Command gentraces writes a deterministic file of synthetic traces in the
// seed article's row format, for benchmarking import and the rules at a
// realistic scale:
//
//	go run ./cmd/gentraces -n 100000 -seed 1 > big.jsonl
//	go run ./cmd/gentraces -n 1000000 -seed 1 -gz -o big.jsonl.gz
//	go run ./cmd/gentraces -n 100000 -runs 2000 -tasks 50 > nightly.jsonl
//
// -runs and -tasks choose how the rows spread (by default one unnamed run
// cycling through 200 tasks): -runs R writes a run_id and fills R runs one
// after another, -tasks T cycles each run through T task ids, and seeds
// count the rounds.
//
// Rows average about 640 bytes and eight tool calls, with a mix of every
// failure class; about three in ten carry the seed's precomputed flags and
// the rest only the evidence the rules derive the class from. The same -n
// and -seed always give the same bytes.
package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0) // the flag set has printed the usage
		}
		fmt.Fprintln(os.Stderr, "gentraces:", err)
		os.Exit(2)
	}
}

// run parses the flags and writes the rows to stdout or -o.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gentraces", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 100000, "number of rows")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same file")
	gz := fs.Bool("gz", false, "gzip the output")
	out := fs.String("o", "", "output file (default: standard output)")
	runs := fs.Int("runs", 0, "split the rows into this many runs, each named by a run_id (0: no run_id)")
	tasks := fs.Int("tasks", nTasks, "task ids each run cycles through")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("-n %d: want a count ≥ 0", *n)
	}
	if *runs < 0 || *tasks < 1 {
		return fmt.Errorf("-runs %d -tasks %d: want runs ≥ 0 and tasks ≥ 1", *runs, *tasks)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		return write(stdout, *n, *seed, newShape(*n, *runs, *tasks), *gz)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := write(f, *n, *seed, newShape(*n, *runs, *tasks), *gz); err != nil {
		return err
	}
	return f.Close()
}

// write streams n rows of shape sh to w through a buffer, gzipped when
// asked.
func write(w io.Writer, n int, seed uint64, sh shape, gz bool) error {
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		w = zw
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := newGenerator(seed, sh)
	row := make([]byte, 0, 4096)
	for i := range n {
		row = g.appendRow(row[:0], i)
		if _, err := bw.Write(row); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if zw != nil {
		return zw.Close()
	}
	return nil
}
