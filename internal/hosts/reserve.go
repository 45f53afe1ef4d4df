package hosts

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ReservationTTL bounds how long a placement counts against its host
// before the host's record lists the sandbox: a boot that never came (its
// worker died, the workflow chose again) frees the room after it.
const ReservationTTL = 2 * time.Minute

// reservation is a placement its host's record does not count yet.
type reservation struct {
	key, sandbox string
	need         Resources
	at           time.Time
}

// reservationKey encodes the reservation in its key, so one listing reads
// them all. Sandbox names hold no '.', so "<sandbox>." is an exact prefix.
func reservationKey(host, sandbox string, need Resources, at time.Time) string {
	return fmt.Sprintf("%s%s.%d.%d.%d", hostKey(host, reservedName), sandbox, need.MilliCPU, need.MemoryMiB, at.UnixMilli())
}

func parseReservation(key string) (reservation, bool) {
	_, rest, ok := strings.Cut(strings.TrimPrefix(key, Prefix), "/"+reservedName)
	if !ok {
		return reservation{}, false
	}
	f := strings.Split(rest, ".")
	if len(f) != 4 || f[0] == "" {
		return reservation{}, false
	}
	cpu, err1 := strconv.ParseInt(f[1], 10, 64)
	mem, err2 := strconv.ParseInt(f[2], 10, 64)
	ms, err3 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return reservation{}, false
	}
	return reservation{key: key, sandbox: f[0], need: Resources{MilliCPU: cpu, MemoryMiB: mem}, at: time.UnixMilli(ms)}, true
}

// pending keeps the reservations that still count: younger than
// ReservationTTL, of sandboxes the record does not list, the newest of each
// sandbox (a retried placement replaces its own).
func pending(rec Record, rs []reservation, now time.Time) []reservation {
	listed := map[string]bool{}
	for _, s := range rec.Sandboxes {
		listed[s] = true
	}
	newest := map[string]reservation{}
	for _, res := range rs {
		if listed[res.sandbox] || now.Sub(res.at) >= ReservationTTL {
			continue
		}
		if old, ok := newest[res.sandbox]; !ok || res.at.After(old.at) || res.at.Equal(old.at) && res.key > old.key {
			newest[res.sandbox] = res
		}
	}
	out := make([]reservation, 0, len(newest))
	for _, res := range newest {
		out = append(out, res)
	}
	return out
}

// Reserve claims need on host for sandbox, or reports that the host has
// no room for it (false).
//
// It writes the reservation first and then reads the host again: the claim
// stands only when the record's Used plus every pending reservation,
// its own included, fits the capacity; otherwise it is withdrawn. Of two
// placements racing for the last room, the one that reads second sees
// both claims (its read follows its own write, which follows the other's
// read, which follows the other's write), so never both stand. Both may
// withdraw when each reads after both wrote: the caller then tries another
// host or again after a pause. The store's list must show a completed Put
// (S3 and local directories do).
//
// A boot of instanceType on a host with warm containers of that type
// claims one, whose limits Used counts already: up to that many such
// reservations fit beyond the free capacity.
func (r *Registry) Reserve(ctx context.Context, host, sandbox string, need Resources, instanceType string) (bool, error) {
	key := reservationKey(host, sandbox, need, r.Now())
	if _, err := r.store.Put(ctx, key, strings.NewReader("")); err != nil {
		return false, fmt.Errorf("hosts: reserve on %s: %w", host, err)
	}
	h, err := r.Get(ctx, host)
	if err != nil {
		_ = r.store.Delete(ctx, key)
		return false, err
	}
	free := h.Capacity.Sub(h.Used).Sub(h.Reserved)
	for range h.Warm[instanceType] {
		free = free.Add(need)
	}
	if free.MilliCPU >= 0 && free.MemoryMiB >= 0 {
		return true, nil
	}
	if err := r.store.Delete(ctx, key); err != nil {
		return false, fmt.Errorf("hosts: withdraw a reservation on %s: %w", host, err)
	}
	return false, nil
}

// Reserves reports whether a pending reservation of sandbox counts on h.
func (h Host) Reserves(sandbox string) bool {
	for _, res := range h.reservations {
		if res.sandbox == sandbox {
			return true
		}
	}
	return false
}

// Release drops sandbox's reservations on host: its boot went elsewhere.
func (r *Registry) Release(ctx context.Context, host, sandbox string) error {
	objs, err := r.store.List(ctx, hostKey(host, reservedName)+sandbox+".")
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := r.store.Delete(ctx, o.Key); err != nil {
			return err
		}
	}
	return nil
}
