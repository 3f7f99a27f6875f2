package sqlite

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// readOnlyHelperEnv makes the test binary, run as another user, open the
// store it names and print what it reads.
const readOnlyHelperEnv = "TRIAGE_READONLY_HELPER"

// TestReadOnlyStoreIsRead: a store this process may not write (its file
// and directory read-only) opens read-only, reads its traces, and refuses
// a write saying the store is read-only; nothing is created beside it.
// Every command (report, traces) failed on open with "attempt to write a
// readonly database". As root, whom permissions do not stop, the check
// runs in a copy of this test binary as the nobody user.
func TestReadOnlyStoreIsRead(t *testing.T) {
	if p := os.Getenv(readOnlyHelperEnv); p != "" {
		readOnlyHelper(t, p)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	store := filepath.Join(dir, "ro", "t.db")
	require.NoError(t, os.Mkdir(filepath.Dir(store), 0o755))
	db, err := Open(context.Background(), store, testDecode)
	require.NoError(t, err)
	importAll(t, db, trace("r", "T1", 0, "a"), trace("r", "T2", 0, "b"))
	require.NoError(t, db.Close())
	require.NoError(t, os.Chmod(store, 0o444))
	require.NoError(t, os.Chmod(filepath.Dir(store), 0o555))
	t.Cleanup(func() { os.Chmod(filepath.Dir(store), 0o755) })
	if os.Geteuid() != 0 {
		readOnlyHelper(t, store)
	} else {
		nobody, err := user.Lookup("nobody")
		if err != nil {
			t.Skip("running as root and there is no nobody user to read as")
		}
		uid, _ := strconv.Atoi(nobody.Uid)
		gid, _ := strconv.Atoi(nobody.Gid)
		// t.TempDir's parents are private: let nobody in.
		for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
			require.NoError(t, os.Chmod(d, 0o755))
		}
		bin := filepath.Join(dir, "helper.test")
		require.NoError(t, copyFile(os.Args[0], bin))
		require.NoError(t, os.Chmod(bin, 0o755))
		cmd := exec.Command(bin, "-test.run=^TestReadOnlyStoreIsRead$", "-test.v")
		cmd.Env = append(os.Environ(), readOnlyHelperEnv+"="+store)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "read 2 traces read-only")
	}
	left, err := filepath.Glob(store + "-*")
	require.NoError(t, err)
	require.Empty(t, left, "nothing is made beside a read-only store")
}

// readOnlyHelper opens the store at path, which this process may not
// write, and checks that it reads and refuses writes.
func readOnlyHelper(t *testing.T, path string) {
	ctx := context.Background()
	db, err := Open(ctx, path, testDecode)
	require.NoError(t, err)
	defer db.Close()
	require.True(t, db.ReadOnly())
	sums, err := db.Summaries(ctx, "")
	require.NoError(t, err)
	require.Len(t, sums, 2)
	_, err = db.Trace(ctx, sums[0].ID)
	require.NoError(t, err)
	im, err := db.beginImport(ctx, func(Added) error { return nil })
	if err == nil {
		err = im.Add(ctx, trace("r", "T3", 0, "c"), nil, "f.jsonl", 1)
		if err == nil {
			err = im.Commit(ctx)
		}
		im.Rollback()
	}
	require.ErrorContains(t, err, "the store is read-only to this process")
	fmt.Printf("read %d traces read-only\n", len(sums))
}
