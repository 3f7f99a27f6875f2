// Package pack reads task packs: the directory of tasks a benchmark runs,
// with each task's prompt, fixtures, frozen spec, hidden tests and
// task.json. It computes the dataset hash the seed article prints, turns
// task.json and the spec files into triage.Task values the rules can use
// without touching files, and reports what is wrong with a pack as
// Problems a person can act on, rather than failing on the first one.
package pack
