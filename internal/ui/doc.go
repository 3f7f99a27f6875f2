// Package ui is triage's Bubble Tea review app: a queue of traces that
// people label, one trace on one screen with its timeline, diff, test
// output, evidence and raw row, and the pickers that store a label event
// at each keystroke.
//
// The package never touches SQL: it talks to storage only through its own
// small Store interface, and every read and write runs in a tea.Cmd so the
// screen never blocks. cmd/triage adapts the SQLite store to Store and
// builds the program with Run.
//
// One root Model owns the size, the screen, the modal and all routing.
// Each screen is a component behind the small screen interface
// (screens.go): SetSize, HandleKey and HandleMouse returning an Action
// the root performs, View, and its help. It reads the session (styles,
// keys, policy, settings, the queue) through a *session the root builds
// for each call. What differs between a review, a blind slice and an
// adjudication (title, queue columns, label kind, what is hidden, the
// help's words) is one policy value (policy.go, columns.go).
//
// Adding a screen: its own file, holding the component and its screenDef
// (name, body, whether the : switcher offers it, what opening it does),
// and in the registry (screens.go) its ID and its line; unless it is a
// document screen (a renderer, a page func and a title func: the report,
// the agreement), the root also holds it in a typed field. The root sizes,
// draws and lists screens from the registry; it still names a screen
// where it acts across screens (labelling from the trace or the queue,
// bulk decisions on the queue, adjudication's agreement, the keys that
// open one, as C does).
// report --tui and agree --tui are the app started on one.
package ui
