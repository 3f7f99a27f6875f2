package card

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/stretchr/testify/require"

	"github.com/triage-dev/triage/internal/reportview"
	"github.com/triage-dev/triage/internal/triage"
)

func TestReportTextGolden(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 140} {
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, Report(seedMix()), width, false))
		require.NotContains(t, b.String(), "\x1b", "no colour means no escape sequences")
		checkGolden(t, fmt.Sprintf("report_%d.golden.txt", width), b.Bytes())
		for _, l := range strings.Split(b.String(), "\n") {
			require.LessOrEqual(t, lipgloss.Width(l), width, "line wider than the terminal: %q", l)
		}
	}
}

// hostileInput carries markup, escape sequences, bidi overrides and URLs
// in every trace-derived string a report prints.
func hostileInput() Input {
	in := seedMix()
	evil := "T\x1b[2J</text><script>alert(1)</script>https://evil.example/x\u202e|*[a](b)\n#"
	in.Traces[0].TaskID = evil
	in.Traces[1].TaskID = evil
	in.Traces[2].Model = `<img src=x onerror="alert(1)">//cdn.example`
	in.Traces[3].Agent = "a\x07\x00gent"
	in.Traces[4].Primary = "<b>NOT_A_CLASS</b>"
	in.Traces[5].Leftover = true
	in.Traces[6].Leaked = true
	in.Controls.RunID = "r1<style>@import 'http://x'</style>"
	// A root cause and a run's note are trace text too.
	in.RootCauses = []RootCauseGroup{{Cause: "called " + evil + " at step 3", Count: 2, Traces: []string{"r1/" + evil + "#0"}, Keys: []string{"r1/" + evil + "#0", "r1/" + evil + "#1"}}}
	in.NotChecked = []RunNote{{RunID: "r1\x1b]8;;http://x\x07", Note: "allowlist: " + evil, Traces: 10}}
	return in
}

// allowedElements are the only elements the report page may contain.
var allowedElements = []string{"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "b", "br",
	"table", "tr", "th", "td", "ul", "li", "svg", "text", "rect", "line", "circle", "g"}

// requireValidXHTML parses the page with encoding/xml in strict mode: every
// element closed and nested, every entity known, one root element.
func requireValidXHTML(t *testing.T, page string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		switch el := tok.(type) {
		case xml.StartElement:
			require.Contains(t, allowedElements, el.Name.Local, "unexpected element")
			for _, a := range el.Attr {
				require.NotContains(t, []string{"src", "href", "style", "action", "formaction", "background"}, strings.ToLower(a.Name.Local))
				require.False(t, strings.HasPrefix(strings.ToLower(a.Name.Local), "on"), "no event handlers")
			}
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	require.Equal(t, 0, depth)
	require.Equal(t, 1, roots)
}

func TestWriteHTMLSelfContainedAndEscaped(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]Input{"seed mix": seedMix(), "hostile": hostileInput(), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			require.NoError(t, WriteHTML(&b, Report(in)))
			page := b.String()
			requireValidXHTML(t, page)
			lower := strings.ToLower(page)
			for _, bad := range []string{"http://", "https://", "//", "<script", "<link", "@import", "url(", "<img", "\x1b", "\x00", "\x07", "\u202e"} {
				require.NotContains(t, lower, bad)
			}
			require.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
			if name != "empty" {
				require.Contains(t, page, "<svg")
				require.Contains(t, page, "Do this:")
			}
		})
	}
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, Report(hostileInput())))
	require.Contains(t, b.String(), "T␛[2J&lt;&#47;text&gt;&lt;script&gt;", "hostile text is shown, inert")
}

func TestWriteTextEscapesHostileText(t *testing.T) {
	t.Parallel()
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, Report(hostileInput()), 100, color))
		out := b.String()
		require.NotContains(t, out, "\x1b[2J")
		require.NotContains(t, out, "\x07")
		require.NotContains(t, out, "\x00")
		require.NotContains(t, out, "\u202e")
		require.Contains(t, out, "T␛[2J")
		if color {
			require.Contains(t, out, "\x1b[", "colour output is styled")
		} else {
			require.NotContains(t, out, "\x1b")
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  T␛") {
				require.NotContains(t, l, "#", "a newline in a task ID does not break the grid line")
			}
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, Report(seedMix())))
	checkGolden(t, "report.golden.md", b.Bytes())

	b.Reset()
	require.NoError(t, WriteMarkdown(&b, Report(hostileInput())))
	out := b.String()
	require.NotContains(t, out, "\x1b")
	require.NotContains(t, out, "<script")
	require.NotContains(t, out, "<img")
	require.Contains(t, out, `\|\*\[a\]\(b\)`)
	// Every row of a table has as many cells as its header, whatever
	// its text: escaped pipes do not add cells.
	head, rows := -1, 0
	for _, l := range strings.Split(out, "\n") {
		switch {
		case !strings.HasPrefix(l, "|"):
			head = -1
		case head < 0:
			head = strings.Count(l, " | ")
		case strings.HasPrefix(l, "|---"):
		default:
			require.Equal(t, head, strings.Count(l, " | "), "escaped pipes do not add cells: %q", l)
			if strings.HasPrefix(l, "| T␛") {
				rows++
			}
		}
	}
	require.Positive(t, rows)
}

func TestReportJSONCountsEveryTraceOnce(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces[4].Leftover = true // an ASSUME_API the rules were unsure of
	in.Traces[9].Primary = ""
	in.Traces[8].Primary = "LEGACY_CLASS"
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, Report(in)))
	var got struct {
		PrimaryCounts Counts    `json:"primary_counts"`
		Leftovers     Leftovers `json:"leftovers"`
		NTraces       int       `json:"n_traces"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.Equal(t, 10, got.NTraces)
	require.Equal(t, 10, got.PrimaryCounts.Sum(), "every trace once")
	require.Equal(t, append(seedTaxonomy().Codes(), "LEGACY_CLASS", Unlabelled), got.PrimaryCounts.Keys())
	n, _ := got.PrimaryCounts.Get(triage.AssumeAPI)
	require.Equal(t, 3, n, "a leftover counts by its current label")
	require.Equal(t, Leftovers{Count: 1, Traces: []string{"r1/T03#0"}}, got.Leftovers)
}

func TestReportFigures(t *testing.T) {
	t.Parallel()
	in := seedMix()
	in.Traces[0].Model = "m2"
	in.Traces[1].Model = "m2"
	in.Traces[7].Leaked = true
	r := Report(in)
	require.Equal(t, &Dominant{Code: triage.AssumeAPI, Name: "Invented surface", Count: 3, Share: 0.3,
		DoNot: "Add more samples of the same task", DoThis: "Inject the spec as a required read; fail closed on unknown paths"}, r.Dominant)
	require.Equal(t, []string{"T03", "T04", "T05"}, r.NobodyClears)
	require.Equal(t, []string{"T01"}, r.Saturated)
	require.Equal(t, []string{"r1/T04#1"}, r.Leaked)
	require.Len(t, r.ByModel, 2)
	m2 := r.ByModel[1]
	require.Equal(t, "m2", m2.Key)
	require.Equal(t, 2, m2.Solved)
	require.InDelta(t, 1.0, m2.PassHatK, 1e-12)
	require.InDelta(t, 0.03/2, *m2.DollarsPerSolved, 1e-12)
	require.InDelta(t, 15.0, *m2.MedianWallS, 1e-12)
	m1 := r.ByModel[0]
	require.Equal(t, 8, m1.Traces)
	require.InDelta(t, 1.0/8, m1.HeadlinePassRate, 1e-12)

	empty := Report(Input{})
	require.Equal(t, 0, empty.NTraces)
	require.Nil(t, empty.Dominant)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, empty, 80, false))
	require.Contains(t, b.String(), "zeros are not a result")
}

func FuzzWriteHTML(f *testing.F) {
	f.Add("T01", "m1", "PASS_WEAK")
	f.Add("https://x/<script>", "\x1b]0;t\a", "<b>")
	f.Add("\xff\xfe]]>", "&#0;", "@import")
	f.Add("\ufffe\uffff", "\U0010ffff", "\u0085")
	f.Fuzz(func(t *testing.T, task, model, primary string) {
		in := seedMix()
		in.Traces[0].TaskID, in.Traces[0].Model, in.Traces[0].Primary = task, model, primary
		var b bytes.Buffer
		require.NoError(t, WriteHTML(&b, Report(in)))
		requireValidXHTML(t, b.String())
		for _, bad := range []string{"//", "<script", "@import"} {
			require.NotContains(t, strings.ToLower(b.String()), bad)
		}
	})
}

// TestViewCarriesTheReport: the view-model the writers and the report
// screen draw names the mix's classes in the report's order, says the
// caveats in words (a warning while anything is left out) and shares the
// report's grid.
func TestViewCarriesTheReport(t *testing.T) {
	t.Parallel()
	r := Report(seedMix())
	v := View(r)
	require.Equal(t, "run r1 · invoice-client-v3", v.Title)
	require.Len(t, v.Mix, len(r.PrimaryCounts))
	for i, c := range r.PrimaryCounts {
		require.Equal(t, c.Key, v.Mix[i].Code)
		require.Equal(t, c.N, v.Mix[i].Count)
	}
	require.Equal(t, "Invented surface", v.Mix[2].Name)
	require.Equal(t, CaveatText(r.Caveats), v.Caveats)
	require.False(t, v.CaveatsWarn, "nothing left out, taxonomy trusted")
	require.Same(t, &r.Grid.Tasks[0], &v.Grid.Tasks[0], "the grid is the report's, not a copy")
	require.Equal(t, "Cost", v.Sections[0].Title)
	require.Equal(t, "By model", v.Sections[1].Title)
	require.Equal(t, "Agreement", v.Sections[len(v.Sections)-2].Title)
	require.Equal(t, Section{Title: "Definitions", Notes: Definitions, List: true}, v.Sections[len(v.Sections)-1])
	require.Equal(t, []reportview.Count(r.OutcomeCounts), v.Outcomes)
	require.Equal(t, []reportview.Count(r.SecondaryCounts), v.Secondary)
	require.Equal(t, r.LabelSources, v.Labels)
	require.Nil(t, v.NotChecked, "every rule applied")
	require.Empty(t, v.RootCauses)
	in := seedMix()
	in.Traces[0].Leftover = true
	require.True(t, View(Report(in)).CaveatsWarn)
	require.Equal(t, "every run", View(Report(Input{})).Title)
	in.NotChecked = []RunNote{{RunID: "r1", Note: "allowlist: no pack", Traces: 10}}
	in.RootCauses = []RootCauseGroup{{Cause: "submitted after tests failed at step 31", Count: 2, Traces: []string{"r1/T03#0"}, Keys: []string{"r1/T03#0", "r1/T04#1"}}}
	v = View(Report(in))
	require.Equal(t, &Section{Title: "Not checked for the whole run", Notes: []string{"r1 · allowlist: no pack (10 traces)"}, List: true}, v.NotChecked)
	require.Equal(t, in.RootCauses, v.RootCauses)
	require.Nil(t, View(Report(Input{})).Secondary, "no secondary tags")
}

// TestRootCausesSayWhatTheyDoNotList: past MaxRootCauses the report
// lists no more groups and says how many groups and traces it left out,
// in the JSON and in every format.
func TestRootCausesSayWhatTheyDoNotList(t *testing.T) {
	t.Parallel()
	in := seedMix()
	for i := range MaxRootCauses + 2 {
		in.RootCauses = append(in.RootCauses, RootCauseGroup{Cause: fmt.Sprintf("cause %d", i), Count: 3, Traces: []string{"r1/T01#0"}})
	}
	r := Report(in)
	require.Len(t, r.RootCauses, MaxRootCauses)
	require.Equal(t, 2, r.RootCausesNotShown)
	require.Equal(t, 6, r.RootCauseTracesNotShown)
	const note = "and 2 more root causes"
	var txt, md, html bytes.Buffer
	require.NoError(t, WriteText(&txt, r, 140, false))
	require.NoError(t, WriteMarkdown(&md, r))
	require.NoError(t, WriteHTML(&html, r))
	for name, out := range map[string]string{"text": txt.String(), "markdown": md.String(), "html": html.String()} {
		require.Contains(t, out, note, name)
		require.Contains(t, out, "6 traces", name)
	}
	require.Empty(t, View(Report(seedMix())).RootCausesNote, "nothing left out, nothing said")
}
