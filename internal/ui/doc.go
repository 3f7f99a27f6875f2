// Package ui is triage's Bubble Tea review app: a queue of traces that
// people label, one trace on one screen with its timeline, diff, test
// output, evidence and raw row, and the pickers that store a label event
// at each keystroke.
//
// The package never touches SQL: it talks to storage only through its own
// small Store interface, and every read and write runs in a tea.Cmd so the
// screen never blocks. cmd/triage adapts the SQLite store to Store and
// builds the program with Run.
package ui
