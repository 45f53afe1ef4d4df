package process

import (
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Backoff between restarts of a service: doubled after each quick exit,
// back to the minimum once a run lasted serviceStable.
const (
	serviceBackoffMin = 250 * time.Millisecond
	serviceBackoffMax = 30 * time.Second
	serviceStable     = 10 * time.Second
)

// services keeps the declared services running: each is an ordinary
// process of the table (its logs, kill and wait routes are those of any
// process), started again by its runner when it exits, per its restart rule.
type services struct {
	s        *Service
	mu       sync.Mutex
	byName   map[string]*runner
	order    []string
	shutdown bool
}

// runner runs one service until stopped.
type runner struct {
	spec api.Service
	stop chan struct{} // closed to stop the service
	gone chan struct{} // closed once its last run has exited

	mu         sync.Mutex
	state      string
	cur        *process
	restarts   int
	lastError  string
	lastExit   *api.ExitStatus // how the previous run ended
	lastExitAt time.Time
}

func (r *runner) set(f func()) {
	r.mu.Lock()
	f()
	r.mu.Unlock()
}

func (r *runner) status() api.ServiceStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := api.ServiceStatus{Service: r.spec, State: r.state, Restarts: r.restarts, LastError: r.lastError, LastExit: r.lastExit}
	if r.cur != nil && r.state == "running" {
		st.ProcessID, st.PID = r.cur.id, r.cur.pid
	}
	if r.lastExit != nil {
		at := r.lastExitAt
		st.LastExitAt = &at
	}
	return st
}

// apply replaces the declared set: services removed or changed are
// stopped, new or changed ones started (a changed one once its old run
// has gone, so it can take over the same port).
func (sv *services) apply(list []api.Service) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.shutdown {
		return
	}
	if sv.byName == nil {
		sv.byName = map[string]*runner{}
	}
	want := map[string]api.Service{}
	for _, spec := range list {
		want[spec.Name] = spec
	}
	prev := map[string]chan struct{}{}
	for name, r := range sv.byName {
		if spec, ok := want[name]; ok && reflect.DeepEqual(spec, r.spec) {
			continue
		}
		close(r.stop)
		prev[name] = r.gone
		delete(sv.byName, name)
	}
	sv.order = sv.order[:0]
	for _, spec := range list {
		sv.order = append(sv.order, spec.Name)
		if _, ok := sv.byName[spec.Name]; ok {
			continue
		}
		r := &runner{spec: spec, stop: make(chan struct{}), gone: make(chan struct{}), state: "starting"}
		sv.byName[spec.Name] = r
		go sv.run(r, prev[spec.Name])
	}
}

// stopAll stops restarting services: the supervisor is shutting down and
// its own signals end the running ones.
func (sv *services) stopAll() {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.shutdown = true
	for _, r := range sv.byName {
		close(r.stop)
	}
	sv.byName = nil
}

func (sv *services) list() []api.ServiceStatus {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	out := make([]api.ServiceStatus, 0, len(sv.order))
	for _, name := range sv.order {
		if r := sv.byName[name]; r != nil {
			out = append(out, r.status())
		}
	}
	return out
}

// run is the life of one service: start, wait, decide, back off, again.
func (sv *services) run(r *runner, after <-chan struct{}) {
	defer close(r.gone)
	if after != nil {
		select {
		case <-after:
		case <-r.stop:
			return
		}
	}
	t := sv.s.procs
	backoff := serviceBackoffMin
	for first := true; ; first = false {
		if !first {
			r.set(func() { r.state = "backoff" })
			select {
			case <-time.After(backoff):
			case <-r.stop:
				r.set(func() { r.state = "stopped" })
				return
			}
			backoff = min(backoff*2, serviceBackoffMax)
			r.set(func() { r.restarts++ })
		}
		select {
		case <-r.stop:
			r.set(func() { r.state = "stopped" })
			return
		default:
		}
		env := make(api.Env, len(r.spec.Env))
		for k, v := range r.spec.Env {
			env[k] = &v
		}
		cmd, aerr := sv.s.launcher.Prepare(r.spec.Argv, r.spec.Cwd, env, nil)
		var p *process
		if aerr == nil {
			p, aerr = t.spawn(spawnSpec{Command: cmd, service: r.spec.Name})
		}
		if aerr != nil {
			// Retried with backoff: the executable may come with the
			// workspace, or a process slot free up.
			r.set(func() { r.lastError = aerr.Message })
			continue
		}
		r.set(func() { r.cur, r.state, r.lastError = p, "running", "" })
		select {
		case <-p.done:
		case <-r.stop:
			sv.end(p)
			r.set(func() { r.state = "stopped" })
			return
		}
		p.mu.Lock()
		exit, ended := *p.exit, p.ended
		p.mu.Unlock()
		r.set(func() { r.lastExit, r.lastExitAt = &exit, ended })
		if r.spec.Restart == api.RestartOnFailure && exit.Code == 0 {
			r.set(func() { r.state = "exited" })
			return
		}
		if time.Since(p.started) >= serviceStable {
			backoff = serviceBackoffMin
		}
	}
}

// end stops a run of a service that is no longer wanted: SIGTERM to its
// group, SIGKILL after the grace.
func (sv *services) end(p *process) {
	t := sv.s.procs
	t.signalGroup(p, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(t.killGrace):
		t.signalGroup(p, syscall.SIGKILL)
		<-p.done
	}
}

// StopServices ends the restarting of services (at shutdown).
func (s *Service) StopServices() { s.svcs.stopAll() }

// putServices replaces the declared services: {"services": [...]}.
func (s *Service) putServices(w http.ResponseWriter, r *http.Request) error {
	var req supervisorapi.ServicesBody
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if req.Services == nil {
		return httpapi.BadRequest(`body must be {"services": [{"name": ..., "argv": [...], "restart": "always" | "on-failure"}]}`)
	}
	list := *req.Services
	if len(list) > api.MaxServices {
		return httpapi.BadRequest("at most " + strconv.Itoa(api.MaxServices) + " services")
	}
	seen := map[string]bool{}
	for i, spec := range list {
		if err := spec.Check(); err != nil {
			return httpapi.BadRequest("services[" + strconv.Itoa(i) + "]: " + err.Error())
		}
		if seen[spec.Name] {
			return httpapi.BadRequest("service " + strconv.Quote(spec.Name) + " is declared twice")
		}
		seen[spec.Name] = true
	}
	s.svcs.apply(list)
	httpapi.WriteJSON(w, http.StatusOK, api.ServiceStatusList{Services: s.svcs.list()})
	return nil
}

func (s *Service) listServices(w http.ResponseWriter, r *http.Request) error {
	httpapi.WriteJSON(w, http.StatusOK, api.ServiceStatusList{Services: s.svcs.list()})
	return nil
}
