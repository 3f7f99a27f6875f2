package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/progress"
)

// progress draws an import progress bar on stderr when stderr is a
// terminal, and nothing at all otherwise (piped output stays clean). It
// redraws from a ticker, never from the decoding path.
type progressBar struct {
	w     io.Writer
	total int64
	read  atomic.Int64
	bar   progress.Model
	stop  chan struct{}
	ended chan struct{}
	on    bool
}

func newProgress(a *app, files []string) *progressBar {
	p := &progressBar{w: a.stderr}
	if !a.isTerminal(a.stderr) {
		return p
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			p.total += st.Size()
		}
	}
	p.on = true
	p.bar = progress.New(progress.WithDefaultGradient(), progress.WithWidth(40))
	p.stop, p.ended = make(chan struct{}), make(chan struct{})
	go p.loop()
	return p
}

func (p *progressBar) loop() {
	defer close(p.ended)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			p.draw()
			fmt.Fprint(p.w, "\n")
			return
		case <-t.C:
			p.draw()
		}
	}
}

func (p *progressBar) draw() {
	n := p.read.Load()
	if p.total > 0 {
		frac := float64(n) / float64(p.total)
		fmt.Fprintf(p.w, "\r%s %s", p.bar.ViewAs(min(frac, 1)), humanBytes(n))
		return
	}
	fmt.Fprintf(p.w, "\rread %s", humanBytes(n))
}

// wrap counts bytes as the importer reads them.
func (p *progressBar) wrap(r io.Reader) io.Reader {
	if !p.on {
		return r
	}
	return &countingReader{r: r, n: &p.read}
}

func (p *progressBar) done() {
	if !p.on {
		return
	}
	p.on = false
	close(p.stop)
	<-p.ended
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
