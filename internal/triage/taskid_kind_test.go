package triage

import "testing"

// TestTaskKindIsRepoOfAndTaskType: the one-match reading gives what the
// two functions give, on every kind of id.
func TestTaskKindIsRepoOfAndTaskType(t *testing.T) {
	for _, id := range []string{"django__django-11276", "owner__repo.abc1234.pr_12", "owner__repo.", "suite/task", "/x", "T000123", "", "a__b", "a__b-12x", "x.y__z-9"} {
		repo, typ := TaskKind(id)
		if repo != RepoOf(id) || typ != TaskType(id) {
			t.Errorf("TaskKind(%q) = %q, %q; RepoOf and TaskType say %q, %q", id, repo, typ, RepoOf(id), TaskType(id))
		}
	}
}
