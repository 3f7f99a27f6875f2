package main

import (
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"
)

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// terminalWidth is w's width when it is a terminal, else def.
func terminalWidth(w any, def int) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(w) {
		return def
	}
	if width, _, err := term.GetSize(f.Fd()); err == nil && width > 0 {
		return width
	}
	return def
}
