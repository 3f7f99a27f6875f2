package diffview

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Style is everything the renderers draw with. Fields are semantic, so the
// app's styles.go can fill them from its own palette; the renderers never
// hold a colour literal. Styles created from a lipgloss.Renderer carry its
// colour profile, which is how output degrades under NO_COLOR and on
// 16-colour terminals.
type Style struct {
	// FileHeader draws the row naming a file of a diff.
	FileHeader lipgloss.Style
	// HunkHeader draws the "@@ -a,b +c,d @@" rows.
	HunkHeader lipgloss.Style
	// Gutter draws line numbers of context lines; GutterAdded and
	// GutterRemoved those of added and removed lines.
	Gutter, GutterAdded, GutterRemoved lipgloss.Style
	// Context, Added and Removed draw line bodies. Their backgrounds fill
	// the whole row, and syntax colours are laid over them.
	Context, Added, Removed lipgloss.Style
	// Muted draws secondary text: folds, counts, timings, ellipses.
	Muted lipgloss.Style
	// Warn draws what the caller marked: invented identifiers and files
	// outside the allowlist. A "!" marker is drawn too, so a mark stays
	// visible without colour.
	Warn lipgloss.Style
	// Error draws tool errors and failing test lines.
	Error lipgloss.Style
	// Pass draws passing test lines.
	Pass lipgloss.Style
	// Match draws search hits.
	Match lipgloss.Style
	// Chroma names the chroma style for syntax colours; "" turns syntax
	// highlighting off.
	Chroma string
}

// DefaultStyle is DefaultStyleFor the default lipgloss renderer (stdout).
// Call lipgloss.HasDarkBackground once before the Bubble Tea program starts,
// because the first call may query the terminal.
func DefaultStyle() Style { return DefaultStyleFor(lipgloss.DefaultRenderer()) }

// DefaultStyleFor builds the default palette on renderer r. Colours adapt
// to light and dark backgrounds and name explicit 256- and 16-colour
// values, so a 16-colour terminal gets legible greens and reds instead of
// a down-sampled guess. Syntax highlighting is off below 256 colours,
// where chroma's palette would fight the line backgrounds, and the Ascii
// profile (NO_COLOR) draws no escape codes at all.
func DefaultStyleFor(r *lipgloss.Renderer) Style {
	c := func(lt, l256, l16, dt, d256, d16 string) lipgloss.CompleteAdaptiveColor {
		return lipgloss.CompleteAdaptiveColor{
			Light: lipgloss.CompleteColor{TrueColor: lt, ANSI256: l256, ANSI: l16},
			Dark:  lipgloss.CompleteColor{TrueColor: dt, ANSI256: d256, ANSI: d16},
		}
	}
	var (
		fg      = c("#1f2328", "235", "0", "#e6edf3", "255", "15")
		muted   = c("#6e7781", "243", "8", "#8b949e", "245", "8")
		addBg   = c("#dafbe1", "194", "10", "#12361f", "22", "2")
		delBg   = c("#ffebe9", "224", "9", "#4a1a1f", "52", "1")
		addFg   = c("#1a7f37", "28", "2", "#3fb950", "71", "10")
		delFg   = c("#cf222e", "160", "1", "#f85149", "203", "9")
		headBg  = c("#eaeef2", "254", "7", "#262c36", "236", "8")
		accent  = c("#0969da", "26", "4", "#79c0ff", "117", "12")
		warn    = c("#9a6700", "136", "3", "#d29922", "178", "11")
		matchBg = c("#fff8c5", "229", "11", "#bb8009", "136", "3")
		matchFg = c("#1f2328", "235", "0", "#0d1117", "233", "0")
	)
	st := Style{
		FileHeader:    r.NewStyle().Bold(true).Foreground(fg).Background(headBg),
		HunkHeader:    r.NewStyle().Foreground(accent),
		Gutter:        r.NewStyle().Foreground(muted),
		GutterAdded:   r.NewStyle().Foreground(addFg).Background(addBg),
		GutterRemoved: r.NewStyle().Foreground(delFg).Background(delBg),
		Context:       r.NewStyle(),
		Added:         r.NewStyle().Background(addBg),
		Removed:       r.NewStyle().Background(delBg),
		Muted:         r.NewStyle().Foreground(muted),
		Warn:          r.NewStyle().Foreground(warn).Bold(true),
		Error:         r.NewStyle().Foreground(delFg).Bold(true),
		Pass:          r.NewStyle().Foreground(addFg),
		Match:         r.NewStyle().Foreground(matchFg).Background(matchBg),
		Chroma:        "github",
	}
	if r.HasDarkBackground() {
		st.Chroma = "github-dark"
	}
	if r.ColorProfile() == termenv.ANSI || r.ColorProfile() == termenv.Ascii {
		st.Chroma = ""
	}
	return st
}
