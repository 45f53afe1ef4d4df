package worker

import (
	"errors"
	"testing"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/workflows"
)

func TestReconcileDecisions(t *testing.T) {
	const me = "h1"
	running := func(host, boot string) *sandboxState {
		return &sandboxState{view: workflows.View{Status: workflows.StatusRunning, Host: host,
			Container: &activities.Container{Host: host, BootID: boot}}}
	}
	status := func(st workflows.Status, host string) *sandboxState {
		return &sandboxState{view: workflows.View{Status: st, Host: host}}
	}
	cases := []struct {
		name                 string
		s                    *sandboxState
		keepCont, keepVolume bool
	}{
		{"temporal unreachable", &sandboxState{err: errors.New("down")}, true, true},
		{"no such sandbox", &sandboxState{missing: true}, false, false},
		{"workflow ended", &sandboxState{closed: true, view: workflows.View{Status: workflows.StatusRunning}}, false, true},
		{"destroyed", status(workflows.StatusDestroyed, me), false, false},
		{"destroying", status(workflows.StatusDestroying, me), true, true},
		{"starting", status(workflows.StatusStarting, "h2"), true, true},
		{"stopping", status(workflows.StatusStopping, me), true, true},
		{"running here, this boot", running(me, "b1"), true, true},
		{"running here, another boot", running(me, "b0"), false, true},
		{"running elsewhere", running("h2", "b1"), false, false},
		{"sleeping here", status(workflows.StatusStopped, me), false, true},
		{"sleeping elsewhere", status(workflows.StatusStopped, "h2"), false, false},
		{"never booted", status(workflows.StatusCreated, ""), false, true},
	}
	for _, c := range cases {
		if got, _ := keepContainer(c.s, me, "b1"); got != c.keepCont {
			t.Errorf("%s: keep container = %v", c.name, got)
		}
		if got, _ := keepVolume(c.s, me); got != c.keepVolume {
			t.Errorf("%s: keep volume = %v", c.name, got)
		}
	}
}
