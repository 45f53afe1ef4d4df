package supervisor_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

// zombieChildren lists zombie processes whose parent is pid.
func zombieChildren(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 1 && f[0] == "Z" && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

func TestReapsOrphansWithoutStealingStatuses(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	// Orphans: the shell exits at once, its background sleeps are
	// re-parented to the supervisor (child subreaper here, PID 1 in a
	// container) and must be reaped when they end.
	p := a.run("sh", "-c", "for i in 1 2 3 4 5; do sleep 0.2 & done; echo $!")
	a.wait(p.ID)
	last, _ := strconv.Atoi(strings.TrimSpace(a.output(p.ID, "encoding=utf8").Stdout))
	eventually(t, "orphans reaped", 5*time.Second, func() bool {
		_, err := os.Stat("/proc/" + strconv.Itoa(last))
		return err != nil && len(zombieChildren(a.inst.PID)) == 0
	})

	// Many concurrent short processes: every one gets its own status.
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := a.run("sh", "-c", fmt.Sprintf("exit %d", i))
			if got := a.wait(p.ID).Exit.Code; got != i {
				t.Errorf("process %d exited %d", i, got)
			}
		}()
	}
	wg.Wait()
	if z := zombieChildren(a.inst.PID); len(z) > 0 {
		t.Fatalf("zombies left: %v", z)
	}
}

func TestShutdownStopsProcesses(t *testing.T) {
	a := newAPI(t, supervisortest.Options{Env: []string{"BERTH_KILL_GRACE=500ms"}})
	polite := a.run("sleep", "300")
	stubborn := a.run("sh", "-c", "trap '' TERM; echo trapped; while :; do sleep 0.05; done")
	a.must("POST", "/v1/processes/"+stubborn.ID+"/wait-for-log", map[string]any{"pattern": "trapped"}, 200, nil)
	start := time.Now()
	a.inst.Stop()
	if el := time.Since(start); el < 400*time.Millisecond || el > 5*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
	for _, pid := range []int{polite.PID, stubborn.PID} {
		eventually(t, "process gone", 3*time.Second, func() bool { return !alive(pid) })
	}
}
