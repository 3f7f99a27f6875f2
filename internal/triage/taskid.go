package triage

import (
	"regexp"
	"strings"
)

// sweInstance is a SWE-bench instance id (owner__repo-1234) or a
// SWE-smith one (owner__repo.commit.pr_1234), which name the repository.
var sweInstance = regexp.MustCompile(`^([A-Za-z0-9_.-]+?)__([A-Za-z0-9_-]+?)(?:[-.][0-9a-f]{6,}|-\d+$|\.)`)

// TaskKind is RepoOf and TaskType of task, read with one match.
func TaskKind(task string) (repo, typ string) {
	m := sweInstance.FindStringSubmatch(task)
	if m == nil {
		return "", TaskType(task)
	}
	typ = TaskTypeSWEBench
	if strings.HasPrefix(task[len(m[1])+2+len(m[2]):], ".") {
		typ = TaskTypeSWESmith
	}
	return m[1] + "/" + m[2], typ
}

// RepoOf is the repository a task id names (django__django-11276 is
// django/django), or "" when it names none.
func RepoOf(task string) string {
	m := sweInstance.FindStringSubmatch(task)
	if m == nil {
		return ""
	}
	return m[1] + "/" + m[2]
}

// Task types TaskType gives when the id alone says what kind of task it is.
const (
	TaskTypeSWEBench = "swe-bench"
	TaskTypeSWESmith = "swe-smith"
)

// TaskType is the kind of task an id names, from the id alone: a
// SWE-bench instance (owner__repo-1234) is "swe-bench", a SWE-smith one
// (owner__repo.commit…) "swe-smith", a namespaced id (suite/task) its
// namespace; "" when the id says nothing (a pack's plain task names).
func TaskType(task string) string {
	if m := sweInstance.FindStringSubmatch(task); m != nil {
		rest := task[len(m[1])+2+len(m[2]):]
		if strings.HasPrefix(rest, ".") {
			return TaskTypeSWESmith
		}
		return TaskTypeSWEBench
	}
	if ns, _, ok := strings.Cut(task, "/"); ok && ns != "" {
		return ns
	}
	return ""
}
