package reconcile

import (
	"errors"
	"testing"

	"github.com/berthdev/berth/workflows/contract"
)

func TestReconcileDecisions(t *testing.T) {
	const me = "h1"
	running := func(host, boot string) *sandboxState {
		return &sandboxState{view: contract.View{Status: contract.StatusRunning, Host: host,
			Container: &contract.Container{Host: host, BootID: boot}}}
	}
	status := func(st contract.Status, host string) *sandboxState {
		return &sandboxState{view: contract.View{Status: st, Host: host}}
	}
	cases := []struct {
		name                 string
		s                    *sandboxState
		keepCont, keepVolume bool
	}{
		{"temporal unreachable", &sandboxState{err: errors.New("down")}, true, true},
		{"no such sandbox", &sandboxState{missing: true}, false, false},
		{"workflow ended", &sandboxState{closed: true, view: contract.View{Status: contract.StatusRunning}}, false, true},
		{"destroyed", status(contract.StatusDestroyed, me), false, false},
		{"destroying", status(contract.StatusDestroying, me), true, true},
		{"starting", status(contract.StatusStarting, "h2"), true, true},
		{"stopping", status(contract.StatusStopping, me), true, true},
		{"running here, this boot", running(me, "b1"), true, true},
		{"running here, another boot", running(me, "b0"), false, true},
		{"running elsewhere", running("h2", "b1"), false, false},
		{"sleeping here", status(contract.StatusStopped, me), false, true},
		{"sleeping elsewhere", status(contract.StatusStopped, "h2"), false, false},
		{"never booted", status(contract.StatusCreated, ""), false, true},
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
