package ui

import tea "github.com/charmbracelet/bubbletea"

// agreementScreenDef is the agreement figures as a screen: agree --tui's
// (the app starts on it), or in an adjudication the slice's, computed
// afresh each time A or : opens it.
func agreementScreenDef() screenDef {
	return screenDef{
		name: "agreement",
		of:   docOf,
		offered: func(m *Model, id screenID) bool {
			return docOffered(m, id) || m.pol.agreement
		},
		open: func(m *Model) tea.Cmd {
			if m.pol.agreement && m.screen != screenAgreement {
				return m.openAgreement()
			}
			return m.show(screenAgreement)
		},
		doc: &docDef{page: agreementDoc, title: agreementTitle},
	}
}

// agreementTitle names the agreement: the slice being adjudicated, or
// what agree --tui rated.
func agreementTitle(s *session) []string {
	if s.pol.agreement {
		return []string{s.pol.title, s.shown(s.cfg.Reviewer), "agreement on slice " + s.shown(s.cfg.Slice)}
	}
	parts := []string{"triage agreement"}
	if a := s.cfg.Agreement; a != nil && a.Title != "" {
		parts = append(parts, s.shown(a.Title))
	}
	return parts
}

// agreementDoc is agree --tui's agreement; adjudication computes its own
// when A opens the screen.
func agreementDoc(m *Model) func(int) page {
	if m.cfg.Agreement == nil {
		return nil
	}
	return m.agreementPage(m.cfg.Agreement, "")
}
