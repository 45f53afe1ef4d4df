package supervisor_test

import (
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	bapi "github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// serviceRuns lists the processes that are runs of service name, oldest first.
func serviceRuns(a *api, name string) []bapi.Process {
	a.t.Helper()
	var ps []bapi.Process
	a.must("GET", "/v1/processes", nil, http.StatusOK, &ps)
	var out []bapi.Process
	for _, p := range ps {
		if p.Service == name {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartedAt.Before(out[j].StartedAt) })
	return out
}

func TestServiceThatCrashesIsRestartedWithBackoff(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	dir := t.TempDir()
	script := writeScript(t, dir, "crash.sh", "echo started $$ >> "+filepath.Join(dir, "runs")+"\necho boom >&2\nexit 3\n")
	a.must("PUT", "/v1/services", map[string]any{"services": []map[string]any{
		{"name": "crasher", "argv": []string{script}, "restart": "on-failure"},
	}}, http.StatusOK, nil)

	var runs []bapi.Process
	eventually(t, "four runs of the crashing service", 10*time.Second, func() bool {
		runs = serviceRuns(a, "crasher")
		return len(runs) >= 4
	})
	// Backoff: each gap between starts is at least the one before it.
	var gaps []time.Duration
	for i := 1; i < 4; i++ {
		gaps = append(gaps, runs[i].StartedAt.Sub(runs[i-1].StartedAt))
	}
	t.Logf("gaps between restarts: %v", gaps)
	if gaps[0] < 200*time.Millisecond || gaps[2] < 2*gaps[0]-50*time.Millisecond {
		t.Errorf("restarts are not backed off: gaps %v", gaps)
	}
	if runs[0].Exit == nil || runs[0].Exit.Code != 3 {
		t.Errorf("first run's exit = %+v, want code 3", runs[0].Exit)
	}
	// Its logs are read like any process's.
	if out := a.output(runs[0].ID, ""); !strings.Contains(out.Stderr, "boom") {
		t.Errorf("output of a service run = %+v, want stderr boom", out)
	}
	var st bapi.ServiceStatusList
	a.must("GET", "/v1/services", nil, http.StatusOK, &st)
	if len(st.Services) != 1 || st.Services[0].Restarts < 3 {
		t.Errorf("services = %+v, want crasher with >= 3 restarts", st.Services)
	} else if le := st.Services[0].LastExit; le == nil || le.Code != 3 || st.Services[0].LastExitAt == nil {
		t.Errorf("crasher's lastExit = %+v at %v, want code 3 and a time", le, st.Services[0].LastExitAt)
	}

	// Removing the service stops the restarts.
	a.must("PUT", "/v1/services", map[string]any{"services": []any{}}, http.StatusOK, nil)
	time.Sleep(300 * time.Millisecond)
	n := len(serviceRuns(a, "crasher"))
	time.Sleep(2 * time.Second)
	if m := len(serviceRuns(a, "crasher")); m != n {
		t.Errorf("a removed service was restarted: %d runs, then %d", n, m)
	}
}

func TestOnFailureServiceIsNotRestartedAfterExitZero(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	a.must("PUT", "/v1/services", map[string]any{"services": []map[string]any{
		{"name": "once", "argv": []string{"sh", "-c", "echo done"}, "restart": "on-failure"},
	}}, http.StatusOK, nil)
	eventually(t, "the service to exit", 5*time.Second, func() bool {
		var st bapi.ServiceStatusList
		a.must("GET", "/v1/services", nil, http.StatusOK, &st)
		return len(st.Services) == 1 && st.Services[0].State == "exited"
	})
	time.Sleep(1500 * time.Millisecond)
	if runs := serviceRuns(a, "once"); len(runs) != 1 {
		t.Fatalf("on-failure service exiting 0 ran %d times, want 1", len(runs))
	}
}

func TestAlwaysServiceKilledComesBack(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	a.must("PUT", "/v1/services", map[string]any{"services": []map[string]any{
		{"name": "loop", "argv": []string{"sleep", "1000"}, "restart": "always", "env": map[string]string{"X": "1"}},
	}}, http.StatusOK, nil)
	var first []bapi.Process
	eventually(t, "the service to run", 5*time.Second, func() bool {
		first = serviceRuns(a, "loop")
		return len(first) == 1 && first[0].State == "running"
	})
	var st bapi.ServiceStatusList
	a.must("GET", "/v1/services", nil, http.StatusOK, &st)
	if len(st.Services) != 1 || st.Services[0].State != "running" || st.Services[0].PID != first[0].PID ||
		st.Services[0].ProcessID != first[0].ID || st.Services[0].LastExit != nil {
		t.Errorf("services = %+v, want loop running as %s (pid %d), no lastExit", st.Services, first[0].ID, first[0].PID)
	}
	a.must("POST", "/v1/processes/"+first[0].ID+"/kill", map[string]any{"signal": "SIGKILL"}, http.StatusOK, nil)
	eventually(t, "the service to come back", 5*time.Second, func() bool {
		runs := serviceRuns(a, "loop")
		return len(runs) == 2 && runs[1].State == "running"
	})
}

func TestServicesAreValidated(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	for _, bad := range []map[string]any{
		{"name": "Bad_Name", "argv": []string{"true"}, "restart": "always"},
		{"name": "x", "argv": []string{}, "restart": "always"},
		{"name": "x", "argv": []string{"true"}, "restart": "sometimes"},
		{"name": "x", "argv": []string{"true"}, "restart": "always", "port": 70000},
	} {
		a.mustFail("PUT", "/v1/services", map[string]any{"services": []any{bad}}, http.StatusBadRequest, string(bapi.CodeValidation))
	}
}
