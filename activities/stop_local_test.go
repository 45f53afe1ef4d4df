package activities

import (
	"context"
	"testing"

	"github.com/berthdev/berth/workflows/contract"
)

// StopLocal acts only on its own host, and only when local work is on: a
// workflow whose task moved to another host's worker must get Handled
// false (and nothing done), so the host's queue stops the container. The
// Activities here has no Docker: acting would panic.
func TestStopLocalLeavesOtherHostsToTheirQueue(t *testing.T) {
	for _, c := range []struct {
		name       string
		localBoots bool
		host       string
	}{
		{"another host", true, "h2"},
		{"no host named", true, ""},
		{"local work off", false, "h1"},
	} {
		a := &Activities{HostID: "h1", LocalBoots: c.localBoots}
		in := contract.StopInput{Sandbox: "s1", Container: contract.Container{ID: "c1", Host: c.host}}
		res, err := a.StopLocal(context.Background(), in)
		if err != nil || res.Handled || res.BackupID != "" {
			t.Errorf("%s: StopLocal = %+v, %v; want not handled", c.name, res, err)
		}
	}
}
