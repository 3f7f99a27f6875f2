package ui

// reportScreenDef is the report's figures as a screen (report --tui: the
// app starts on it).
func reportScreenDef() screenDef {
	return screenDef{
		name:    "report",
		of:      docOf,
		offered: docOffered,
		doc:     &docDef{page: reportDoc, title: reportTitle},
	}
}

// reportTitle names the report's run.
func reportTitle(s *session) []string {
	parts := []string{"triage report"}
	if r := s.cfg.Report; r != nil && r.Title != "" {
		parts = append(parts, s.shown(r.Title))
	}
	return parts
}

// reportDoc is report --tui's report, or a note while it is being
// computed.
func reportDoc(m *Model) func(int) page {
	r, st := m.cfg.Report, m.st
	switch {
	case r != nil:
		return func(w int) page { return renderReport(st, r, w) }
	case m.cfg.LoadReport != nil:
		return notePage(st, computingReport)
	}
	return nil
}
