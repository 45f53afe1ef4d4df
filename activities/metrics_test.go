package activities

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
)

// A failed backup's cause label names where it failed, from the error
// chain the backup code really returns.
func TestBackupCauseNamesWhereABackupFailed(t *testing.T) {
	dir := t.TempDir()
	store, err := blob.OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox's key prefix is a file: the store cannot write under it.
	if err := os.WriteFile(filepath.Join(dir, "sb"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = backup.Create(context.Background(), store, "sb", t.TempDir(), backup.Options{})
	if err == nil {
		t.Fatal("backup into a file succeeded")
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{err, "disk"},
		{fmt.Errorf("backup: %w", errStalled), "stalled"},
		{fmt.Errorf("restore: %w", backup.ErrCorrupt), "corrupt"},
		{context.Canceled, "cancelled"},
		{fmt.Errorf("backup: upload: %w", &smithy.OperationError{ServiceID: "S3", Err: errors.New("connection refused")}), "store"},
		{errors.New("something else"), "other"},
	} {
		if got := backupCause(c.err); got != c.want {
			t.Errorf("backupCause(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if !strings.Contains(err.Error(), "not a directory") {
		t.Logf("the store's error: %v", err)
	}
}
