package activities

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// placeRounds bounds how often Place tries again when every host that had
// room was taken by a racing placement in the meantime (see
// hosts.Registry.Reserve: both racers may withdraw).
const placeRounds = 5

// Place picks the host a boot goes to (contract.ActivityPlace): it reads
// the host registry, orders the hosts (hosts.Choose) and reserves room on
// the first that still has it. The reservation counts against the host
// until its next announcement lists the sandbox, so boots placed between
// two announcements do not all land on a host with room for one.
// No host fits: a non-retryable contract.ErrNoCapacity.
func (a *Activities) Place(ctx context.Context, in contract.PlaceInput) (res contract.PlaceResult, err error) {
	defer func() { metrics.Placements.WithLabelValues(a.placement(res, err)).Inc() }()
	if err := contract.CheckSandbox(in.Sandbox); err != nil {
		return contract.PlaceResult{}, err
	}
	it, ok := a.InstanceTypes[in.InstanceType]
	if !ok {
		return contract.PlaceResult{}, contract.ValidationError(fmt.Sprintf("unknown instance type %q (have %s)",
			in.InstanceType, strings.Join(a.InstanceTypes.Names(), ", ")))
	}
	if a.Hosts == nil {
		return contract.PlaceResult{}, temporal.NewNonRetryableApplicationError("this worker has no host registry", contract.ErrNoCapacity, nil)
	}
	need := hosts.Need(it)
	var hs []hosts.Host
	for round := 0; round < placeRounds; round++ {
		var err error
		if hs, err = a.Hosts.List(ctx); err != nil {
			return contract.PlaceResult{}, err // the store may come back: retried
		}
		ch := hosts.Choose(hs, in, need)
		for _, id := range a.hereFirst(ctx, ch.Candidates, in) {
			ok, err := a.Hosts.Reserve(ctx, id, in.Sandbox, need, in.InstanceType)
			if err != nil {
				return contract.PlaceResult{}, err
			}
			if ok {
				// An earlier placement of this sandbox (a host that did
				// not take the boot in time) no longer holds room.
				for _, h := range hs {
					if h.ID != id && h.Reserves(in.Sandbox) {
						_ = a.Hosts.Release(ctx, h.ID, in.Sandbox)
					}
				}
				return contract.PlaceResult{Host: id, PreferredLive: ch.PreferredLive, Local: a.bootsHere(ctx, id, in.InstanceType)}, nil
			}
		}
		if len(ch.Candidates) == 0 {
			break
		}
		// Every candidate was taken by racing placements: read again
		// after a pause that keeps the racers apart.
		select {
		case <-ctx.Done():
			return contract.PlaceResult{}, ctx.Err()
		case <-time.After(time.Duration(20+rand.IntN(180)) * time.Millisecond):
		}
	}
	return contract.PlaceResult{}, temporal.NewNonRetryableApplicationError(noCapacity(hs, in, need), contract.ErrNoCapacity, nil)
}

// bootsHere reports whether a boot placed on host can be a BootWarm in
// this worker: Place runs here as the workflow's local activity, host is
// this worker's, and its pool has a container of the instance type ready.
func (a *Activities) bootsHere(ctx context.Context, host, instanceType string) bool {
	return a.LocalBoots && host == a.HostID && activity.GetInfo(ctx).IsLocalActivity && a.Pool.has(instanceType)
}

// hereFirst moves this worker's host to the front of the candidates when
// a boot there could claim in place (bootsHere), saving the host queue's
// dispatch and a workflow task (about 45 ms of a warm create's 145),
// unless the first candidate is the sandbox's own host. The host loses
// little by it: its warm container is room already counted, and the
// workflow tasks that run Place spread over every host's worker.
func (a *Activities) hereFirst(ctx context.Context, cands []string, in contract.PlaceInput) []string {
	i := slices.Index(cands, a.HostID)
	if i <= 0 || cands[0] == in.PreferHost || !a.bootsHere(ctx, a.HostID, in.InstanceType) {
		return cands
	}
	return append([]string{a.HostID}, slices.Delete(slices.Clone(cands), i, i+1)...)
}

// noCapacity says why no host took the boot, so an operator knows whether
// to add hosts, undrain one or wait.
func noCapacity(hs []hosts.Host, in contract.PlaceInput, need hosts.Resources) string {
	if in.Sticky {
		for _, h := range hs {
			if h.ID == in.PreferHost && h.Live {
				why := "has no room for it"
				switch {
				case slices.Contains(in.Exclude, h.ID):
					why = "did not take the boot in time"
				case h.Draining:
					why = "is draining"
				}
				return fmt.Sprintf("host %s holds the only copy of sandbox %s's workspace (no backup has it) and %s; "+
					"undrain the host or free room on it", h.ID, in.Sandbox, why)
			}
		}
	}
	var live, draining, excluded int
	for _, h := range hs {
		switch {
		case !h.Live:
		case slices.Contains(in.Exclude, h.ID):
			excluded++
		case h.Draining:
			draining++
		default:
			live++
		}
	}
	return fmt.Sprintf("no live host has room for instance type %s (%d mCPU, %d MiB): of %d hosts known, %d are live and full, "+
		"%d draining, %d unreachable for this boot, %d lost", in.InstanceType, need.MilliCPU, need.MemoryMiB, len(hs), live, draining, excluded,
		len(hs)-live-draining-excluded)
}

// placement is a Place's outcome as a label: here (this worker's host),
// other, no_capacity, error.
func (a *Activities) placement(res contract.PlaceResult, err error) string {
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &app) && app.Type() == contract.ErrNoCapacity:
		return "no_capacity"
	case err != nil:
		return metrics.Error
	case res.Host == a.HostID:
		return "here"
	}
	return "other"
}

// releaseRoom drops the sandbox's reservation on this host once its
// container is gone (sleep, destroy). A reservation counts until the
// host's next announcement lists the sandbox; one created and removed
// between two announcements was never listed, and its room stayed taken
// for hosts.ReservationTTL: a benchmark creating and destroying sandboxes
// back to back met NO_CAPACITY after 47 of them on a host with room for
// a few. Best effort: the TTL still ends a reservation left behind.
func (a *Activities) releaseRoom(ctx context.Context, sandbox string) {
	if a.Hosts == nil || a.HostID == "" {
		return
	}
	if err := a.Hosts.Release(ctx, a.HostID, sandbox); err != nil {
		a.Log.Warn("release the room reserved for a sandbox", sandboxlog.Of(sandbox, ""), zap.Error(err))
	}
}
