package chaos

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	dockerclient "github.com/docker/docker/client"
	temporal "go.temporal.io/sdk/client"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// figures of the invariant checks
var verified struct {
	bytes, files, sandboxes, events, queries, services int64
	hostStops                                          int64 // running sandboxes stopped by their host's death, saying so
}

// check waits for the stack to answer, then checks every invariant and
// returns the violations.
func check(t *testing.T, tc temporal.Client, hosts []dockerHost, c *client.Client, d *driver, lostSince time.Time) []string {
	var v []string
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	d.mu.Lock()
	boxes := append([]*sandboxModel(nil), d.boxes...)
	d.mu.Unlock()

	// The sandboxes that sleep when idle are kept awake from here (an
	// acknowledged change like any), and any sleep under way ends first,
	// or one could stop between two checks.
	for _, b := range boxes {
		if !b.idle || b.status == "destroyed" || b.status == "never-created" {
			continue
		}
		keep := true
		if err := retry(ctx, func() error { _, err := c.Patch(ctx, b.name, nil, &keep); return err }); err != nil && !errors.Is(err, client.ErrSandboxNotFound) {
			v = append(v, fmt.Sprintf("%s: keepAlive not set after the faults: %v", b.name, err))
		}
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			info, err := c.Get(ctx, b.name)
			if err != nil || (info.Status != "starting" && info.Status != "stopping") {
				break
			}
			time.Sleep(time.Second)
		}
	}

	// 1. Every sandbox is in the state its last acknowledged operation
	// implies, and every workflow answers a query.
	for _, b := range boxes {
		var info *client.SandboxInfo
		if err := retry(ctx, func() (err error) { info, err = c.Get(ctx, b.name); return err }); err != nil {
			if !b.claimed && errors.Is(err, client.ErrSandboxNotFound) {
				b.status = "never-created" // its create got no answer and claimed nothing
				continue
			}
			v = append(v, fmt.Sprintf("%s: GET failed after the faults: %v", b.name, err))
			continue
		}
		// An idle sandbox may have slept by itself since it last ran; a
		// sandbox whose host died is stopped and says so.
		idleSlept := b.idle && b.status == "running" && info.Status == "stopped"
		hostDied := !lostSince.IsZero() && b.status == "running" && info.Status == "stopped" && saysStopped(ctx, c, b.name, lostSince)
		if hostDied {
			verified.hostStops++
		}
		if b.status != "" && info.Status != b.status && !idleSlept && !hostDied {
			v = append(v, fmt.Sprintf("%s: status %s, the last acknowledged operation implies %s", b.name, info.Status, b.status))
		}
		for k, want := range b.env {
			if want != "" && info.Env[k] != want {
				v = append(v, fmt.Sprintf("%s: env %s=%q, acknowledged %q", b.name, k, info.Env[k], want))
			}
		}
		if got := policyString(info.Egress); b.egress != "" && info.Status != "destroyed" && got != b.egress {
			v = append(v, fmt.Sprintf("%s: egress %q, acknowledged %q", b.name, got, b.egress))
		}
		b.status = info.Status // what the rest of the checks go by
		qctx, qcancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := tc.QueryWorkflow(qctx, contract.WorkflowID(b.name), "", contract.QueryState)
		qcancel()
		if err != nil {
			v = append(v, fmt.Sprintf("%s: the workflow answered no query within 10 s: %v", b.name, err))
		} else {
			verified.queries++
		}
	}

	// 2. Exactly one container per running sandbox, none otherwise; no
	// volume of a destroyed sandbox; no container or volume of this host
	// that belongs to no sandbox of the run (warm ones aside). A host
	// that just came back reconciles what its death left (an exited
	// container of a sandbox stopped meanwhile) on its own time: the
	// count is taken again for up to a minute until it holds.
	deadline := time.Now().Add(time.Minute)
	for {
		cv := containerChecks(ctx, t, hosts, boxes)
		if len(cv) == 0 || time.Now().After(deadline) {
			v = append(v, cv...)
			break
		}
		time.Sleep(2 * time.Second)
	}

	// 3. Every acknowledged file is there, byte for byte, after a wake
	// (files an unacknowledged write may have changed are skipped).
	for _, b := range boxes {
		if b.status == "destroyed" || b.status == "never-created" {
			continue
		}
		if b.status != "running" {
			// Each wake gets its own bound: one refused until the end
			// (NO_CAPACITY on a full host) must not use up the deadline
			// of every check after it.
			wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
			err := retry(wctx, func() error { _, err := c.Start(wctx, b.name); return err })
			wcancel()
			if err != nil {
				v = append(v, fmt.Sprintf("%s: no wake after the faults: %v", b.name, err))
				continue
			}
		}
		verified.sandboxes++
		paths := make([]string, 0, len(b.files))
		for p := range b.files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			want := b.files[p]
			if want == "" {
				continue
			}
			var got string
			var n int64
			if err := retry(ctx, func() (err error) { got, n, err = readSum(ctx, c, b.name, p); return err }); err != nil {
				v = append(v, fmt.Sprintf("%s:%s unreadable: %v", b.name, p, err))
				continue
			}
			if got != want {
				v = append(v, fmt.Sprintf("%s:%s sha256 %s, acknowledged %s", b.name, p, short(got), short(want)))
				continue
			}
			verified.files++
			verified.bytes += n
		}
	}

	// 4. Every sandbox holds the services last acknowledged, and runs
	// them (they were all woken above).
	for _, b := range boxes {
		if b.status == "destroyed" || b.status == "never-created" || len(b.services) == 0 {
			continue
		}
		var got []client.ServiceStatus
		deadline := time.Now().Add(time.Minute)
		for {
			err := retry(ctx, func() (err error) { got, err = c.ListServices(ctx, b.name); return err })
			if err != nil {
				v = append(v, fmt.Sprintf("%s: services: %v", b.name, err))
				break
			}
			bad := serviceMismatch(b.services, got)
			if bad == "" {
				verified.services += int64(len(got))
				break
			}
			if time.Now().After(deadline) {
				v = append(v, fmt.Sprintf("%s: %s", b.name, bad))
				break
			}
			time.Sleep(time.Second)
		}
	}

	// 5. Every event stream is gap-free, and reads the same twice.
	for _, b := range boxes {
		if b.status == "never-created" {
			continue
		}
		first, err := events(ctx, c, b.name)
		if err != nil {
			v = append(v, fmt.Sprintf("%s: events: %v", b.name, err))
			continue
		}
		for i, ev := range first {
			if ev.Offset != int64(i+1) {
				v = append(v, fmt.Sprintf("%s: event %d has offset %d (a gap or a repeat)", b.name, i+1, ev.Offset))
				break
			}
		}
		again, err := events(ctx, c, b.name)
		if err != nil {
			v = append(v, fmt.Sprintf("%s: events again: %v", b.name, err))
			continue
		}
		if len(again) < len(first) {
			v = append(v, fmt.Sprintf("%s: %d events, then %d", b.name, len(first), len(again)))
			continue
		}
		for i := range first {
			if first[i].Offset != again[i].Offset || first[i].Type != again[i].Type {
				v = append(v, fmt.Sprintf("%s: offset %d was %s, then %s", b.name, first[i].Offset, first[i].Type, again[i].Type))
				break
			}
		}
		verified.events += int64(len(first))
	}
	return v
}

func events(ctx context.Context, c *client.Client, name string) ([]client.Event, error) {
	var out []client.Event
	err := retry(ctx, func() error {
		out = out[:0]
		for ev, err := range c.Events(ctx, name, 0, false) {
			if err != nil {
				return err
			}
			out = append(out, ev)
		}
		return nil
	})
	return out, err
}

func states(cs []container.Summary) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.ID[:12]+" "+c.State)
	}
	return strings.Join(s, ", ")
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	if sum == "" {
		return "(missing)"
	}
	return sum
}

// serviceMismatch says how the declared services differ from what the
// model knows ("" when they match and every declared one runs).
func serviceMismatch(want map[string]string, got []client.ServiceStatus) string {
	have := map[string]client.ServiceStatus{}
	for _, s := range got {
		have[s.Name] = s
	}
	for _, name := range sortedKeys2(want) {
		s, ok := have[name]
		switch want[name] {
		case "declared":
			if !ok {
				return fmt.Sprintf("service %s acknowledged declared, not listed", name)
			}
			if s.State != "running" {
				return fmt.Sprintf("service %s is %s (last error %q), not running", name, s.State, s.LastError)
			}
		case "removed":
			if ok {
				return fmt.Sprintf("service %s acknowledged removed, still listed (%s)", name, s.State)
			}
		}
	}
	for name := range have {
		if _, known := want[name]; !known {
			return fmt.Sprintf("service %s was never declared", name)
		}
	}
	return ""
}

func sortedKeys2(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dockerHost is one Docker host whose containers and volumes the checks
// count.
type dockerHost struct {
	id  string
	cli *dockerclient.Client
}

// saysStopped: the sandbox's events since t say it stopped (its host was
// lost, or its container died with the host) without a sleep asked.
func saysStopped(ctx context.Context, c *client.Client, name string, t time.Time) bool {
	evs, err := events(ctx, c, name)
	if err != nil {
		return false
	}
	for _, ev := range evs {
		if ev.CreatedAt.Before(t) {
			continue
		}
		if ev.Type == api.EventHostLost || ev.Type == api.EventStopped {
			return true
		}
	}
	return false
}

// containerChecks counts every host's containers and volumes against the
// sandboxes' statuses (invariant 2) and returns the violations.
func containerChecks(ctx context.Context, t *testing.T, hosts []dockerHost, boxes []*sandboxModel) []string {
	var v []string
	known := map[string]*sandboxModel{}
	for _, b := range boxes {
		known[b.name] = b
	}
	var cs []container.Summary
	var vols []*volume.Volume
	for _, h := range hosts {
		ours := filters.NewArgs(filters.Arg("label", dockerrt.LabelHost+"="+h.id))
		hc, err := h.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: ours})
		if err != nil {
			t.Fatalf("host %s: %v", h.id, err)
		}
		cs = append(cs, hc...)
		vs, err := h.cli.VolumeList(ctx, volume.ListOptions{Filters: ours})
		if err != nil {
			t.Fatalf("host %s: %v", h.id, err)
		}
		vols = append(vols, vs.Volumes...)
	}
	perSandbox := map[string][]container.Summary{}
	for _, ct := range cs {
		// A claimed warm container carries its sandbox in its name only.
		n := activities.SandboxOf(ct.Labels, activities.ListedName(ct.Names))
		if n == "" {
			continue // warm, unclaimed
		}
		if known[n] == nil {
			v = append(v, fmt.Sprintf("orphan container %s of unknown sandbox %q", ct.ID[:12], n))
			continue
		}
		perSandbox[n] = append(perSandbox[n], ct)
	}
	for _, b := range boxes {
		got := perSandbox[b.name]
		switch b.status {
		case "running":
			if len(got) != 1 || got[0].State != "running" {
				v = append(v, fmt.Sprintf("%s: running with %d containers (%s)", b.name, len(got), states(got)))
			}
		case "starting", "stopping":
			v = append(v, fmt.Sprintf("%s: still %s minutes after the faults stopped", b.name, b.status))
		default:
			if len(got) != 0 {
				v = append(v, fmt.Sprintf("%s: %s with %d containers (%s)", b.name, b.status, len(got), states(got)))
			}
		}
	}
	for _, vol := range vols {
		n := vol.Labels[dockerrt.LabelSandbox]
		if n == "" {
			continue
		}
		if b := known[n]; b == nil || b.status == "destroyed" {
			v = append(v, fmt.Sprintf("orphan volume %s (sandbox %q)", vol.Name, n))
		}
	}
	return v
}
