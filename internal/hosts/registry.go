// Package hosts is the registry of Docker hosts: every worker announces its
// host (capacity, load, version, route) into the shared blob store every
// contract.HostAnnounceEvery, and placement, the host-loss monitor and the
// gateway read it from there. No extra service: the backup store every
// worker and gateway already share is the one place all of them reach.
//
// Layout, under a prefix no sandbox name can take (names start with a
// letter or digit, so backups never collide with it):
//
//	_hosts/<id>/record.json            the host's own announcement
//	_hosts/<id>/drain                  present while the host is draining
//	_hosts/<id>/reserved/<sandbox>.<milliCPU>.<MiB>.<unixMilli>
//	                                   a placement not yet in the record
//
// The drain flag has its own key so an announcement never clobbers what
// the gateway set, and reservations are one object each so two placements
// never read-modify-write one object.
package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/workflows/contract"
)

// Prefix holds the registry in the shared store.
const Prefix = "_hosts/"

const (
	recordName   = "record.json"
	drainName    = "drain"
	reservedName = "reserved/"
)

// ErrNotFound: no host of that id has ever announced itself.
var ErrNotFound = errors.New("hosts: no such host")

// validID is what config's host-id sanitiser produces (lower-case letters,
// digits, '-'), bounded; anything else names no host.
var validID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,99}$`)

// ValidID reports whether id can be a host id.
func ValidID(id string) bool { return validID.MatchString(id) }

// Resources are CPU and memory in the units placement adds up.
type Resources struct {
	MilliCPU  int64 `json:"milliCpu"`
	MemoryMiB int64 `json:"memoryMiB"`
}

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	return Resources{MilliCPU: r.MilliCPU + o.MilliCPU, MemoryMiB: r.MemoryMiB + o.MemoryMiB}
}

// Sub returns r - o.
func (r Resources) Sub(o Resources) Resources {
	return Resources{MilliCPU: r.MilliCPU - o.MilliCPU, MemoryMiB: r.MemoryMiB - o.MemoryMiB}
}

// Covers reports whether r holds need.
func (r Resources) Covers(need Resources) bool {
	return r.MilliCPU >= need.MilliCPU && r.MemoryMiB >= need.MemoryMiB
}

// Record is what a worker announces of its host.
type Record struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	// Addr is the host's route (BERTH_HOST_ADDR), empty when unset.
	Addr     string    `json:"addr,omitempty"`
	Capacity Resources `json:"capacity"`
	// Used sums the limits of the host's Berth containers.
	Used Resources `json:"used"`
	// Sandboxes holds the names of the sandboxes with a container here;
	// a reservation for one of them is then counted in Used already.
	Sandboxes []string `json:"sandboxes,omitempty"`
	// Warm counts the host's unclaimed warm containers ready to be
	// claimed, by instance type (their limits are in Used already, as are
	// those of warm containers still being made): a boot there claims one.
	Warm map[string]int `json:"warm,omitempty"`
	// CRIU is what `criu check` said when the worker started (a later
	// "sleep with memory" needs it to pass); absent from older workers.
	CRIU   *CRIU     `json:"criu,omitempty"`
	SeenAt time.Time `json:"seenAt"`
}

// CRIU is a host's `criu check` result.
type CRIU struct {
	State   string `json:"state"` // CRIUAbsent, CRIUFailing or CRIUWorks
	Version string `json:"version,omitempty"`
	// Detail is criu's verdict: its last line of output.
	Detail string `json:"detail,omitempty"`
}

// CRIU states.
const (
	CRIUAbsent  = "absent"
	CRIUFailing = "failing"
	CRIUWorks   = "works"
)

// Host is a record as readers see it: with the drain flag, liveness and
// the placements the record does not count yet.
type Host struct {
	Record
	Draining bool      `json:"draining"`
	Live     bool      `json:"live"`
	Reserved Resources `json:"reserved"`
	// reservations not yet in Used, by key
	reservations []reservation
}

// Free is what placement may still give out on the host.
func (h Host) Free() Resources { return h.Capacity.Sub(h.Used).Sub(h.Reserved) }

// Registry reads and writes host records in a blob store.
type Registry struct {
	store blob.Store
	// Now is the clock (tests move it).
	Now func() time.Time
	// LostAfter: a host whose record is older is not live.
	LostAfter time.Duration
}

// New returns the registry kept in store.
func New(store blob.Store) *Registry {
	return &Registry{store: store, Now: time.Now, LostAfter: contract.HostLostAfter}
}

func hostKey(id, name string) string { return Prefix + id + "/" + name }

// Announce writes the host's record (its SeenAt set now) and drops the
// reservations it now covers or that are too old to matter.
func (r *Registry) Announce(ctx context.Context, rec Record) error {
	if !ValidID(rec.ID) {
		return fmt.Errorf("hosts: invalid host id %q", rec.ID)
	}
	rec.SeenAt = r.Now().UTC()
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := r.store.Put(ctx, hostKey(rec.ID, recordName), bytes.NewReader(body)); err != nil {
		return fmt.Errorf("hosts: announce %s: %w", rec.ID, err)
	}
	objs, err := r.store.List(ctx, hostKey(rec.ID, reservedName))
	if err != nil {
		return nil // the record is out; stale reservations go next time
	}
	here := map[string]bool{}
	for _, s := range rec.Sandboxes {
		here[s] = true
	}
	for _, o := range objs {
		res, ok := parseReservation(o.Key)
		if ok && !here[res.sandbox] && r.Now().Sub(res.at) < ReservationTTL {
			continue
		}
		_ = r.store.Delete(ctx, o.Key)
	}
	return nil
}

// SetDraining sets or clears the host's drain flag. The host must have
// announced itself once (ErrNotFound otherwise).
func (r *Registry) SetDraining(ctx context.Context, id string, draining bool) error {
	if _, err := r.Get(ctx, id); err != nil {
		return err
	}
	if !draining {
		return r.store.Delete(ctx, hostKey(id, drainName))
	}
	_, err := r.store.Put(ctx, hostKey(id, drainName), strings.NewReader(r.Now().UTC().Format(time.RFC3339Nano)))
	return err
}

// Forget removes a host's record, drain flag and reservations: the
// caller has made sure it is lost. ErrNotFound if it never announced
// itself.
func (r *Registry) Forget(ctx context.Context, id string) error {
	if _, err := r.Get(ctx, id); err != nil {
		return err
	}
	objs, err := r.store.List(ctx, Prefix+id+"/")
	if err != nil {
		return fmt.Errorf("hosts: forget %s: %w", id, err)
	}
	// The record last: a failure halfway leaves the host listed, and
	// forgetting it again finishes the job.
	last := func(o blob.Object) int {
		if o.Key == hostKey(id, recordName) {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(objs, func(a, b blob.Object) int { return last(a) - last(b) })
	for _, o := range objs {
		if err := r.store.Delete(ctx, o.Key); err != nil {
			return fmt.Errorf("hosts: forget %s: %w", id, err)
		}
	}
	return nil
}

// Get reads one host.
func (r *Registry) Get(ctx context.Context, id string) (Host, error) {
	if !ValidID(id) {
		return Host{}, ErrNotFound
	}
	hs, err := r.list(ctx, Prefix+id+"/")
	if err != nil {
		return Host{}, err
	}
	for _, h := range hs {
		if h.ID == id {
			return h, nil
		}
	}
	return Host{}, ErrNotFound
}

// List reads every host that has announced itself, sorted by id.
func (r *Registry) List(ctx context.Context) ([]Host, error) { return r.list(ctx, Prefix) }

// list makes one listing of prefix and reads the records under it.
func (r *Registry) list(ctx context.Context, prefix string) ([]Host, error) {
	objs, err := r.store.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("hosts: list: %w", err)
	}
	type parts struct {
		record   bool
		draining bool
		reserved []reservation
	}
	byID := map[string]*parts{}
	for _, o := range objs {
		id, name, ok := strings.Cut(strings.TrimPrefix(o.Key, Prefix), "/")
		if !ok || !ValidID(id) {
			continue
		}
		p := byID[id]
		if p == nil {
			p = &parts{}
			byID[id] = p
		}
		switch {
		case name == recordName:
			p.record = true
		case name == drainName:
			p.draining = true
		case strings.HasPrefix(name, reservedName):
			if res, ok := parseReservation(o.Key); ok {
				p.reserved = append(p.reserved, res)
			}
		}
	}
	now := r.Now()
	var out []Host
	for id, p := range byID {
		if !p.record {
			continue
		}
		rec, err := r.readRecord(ctx, id)
		if errors.Is(err, blob.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		h := Host{Record: rec, Draining: p.draining, Live: now.Sub(rec.SeenAt) < r.LostAfter}
		h.reservations = pending(rec, p.reserved, now)
		for _, res := range h.reservations {
			h.Reserved = h.Reserved.Add(res.need)
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (r *Registry) readRecord(ctx context.Context, id string) (Record, error) {
	rc, err := r.store.Get(ctx, hostKey(id, recordName))
	if err != nil {
		return Record{}, err
	}
	defer rc.Close()
	var rec Record
	body, err := io.ReadAll(io.LimitReader(rc, 4<<20))
	if err == nil {
		err = json.Unmarshal(body, &rec)
	}
	if err != nil {
		return Record{}, fmt.Errorf("hosts: read record of %s: %w", id, err)
	}
	rec.ID = id
	return rec, nil
}

// Need is what one sandbox of type t takes from its host.
func Need(t config.InstanceType) Resources {
	return Resources{MilliCPU: int64(math.Round(t.VCPU * 1000)), MemoryMiB: t.MemoryMiB}
}
