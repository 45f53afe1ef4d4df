package hosts

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/blob"
)

func newRegistry(t *testing.T) *Registry {
	store, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return New(store)
}

func TestAnnounceKeepsTheDrainFlagAndLiveness(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	if err := r.SetDraining(ctx, "h1", true); !errors.Is(err, ErrNotFound) {
		t.Fatalf("drain of a host never seen: %v, want ErrNotFound", err)
	}
	rec := Record{ID: "h1", Version: "v1", Capacity: Resources{2000, 4096}}
	if err := r.Announce(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := r.SetDraining(ctx, "h1", true); err != nil {
		t.Fatal(err)
	}
	if err := r.Announce(ctx, rec); err != nil { // the worker's next announcement
		t.Fatal(err)
	}
	h, err := r.Get(ctx, "h1")
	if err != nil || !h.Draining || !h.Live || h.Version != "v1" {
		t.Fatalf("after drain and announce: %+v %v", h, err)
	}
	r.Now = func() time.Time { return time.Now().Add(r.LostAfter) }
	if h, _ := r.Get(ctx, "h1"); h.Live {
		t.Fatal("a host silent for LostAfter is still live")
	}
	r.Now = time.Now
	if err := r.SetDraining(ctx, "h1", false); err != nil {
		t.Fatal(err)
	}
	if h, _ := r.Get(ctx, "h1"); h.Draining {
		t.Fatal("undrain did not clear the flag")
	}
	if _, err := r.Get(ctx, "h1x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a host id that is a prefix of another: %v", err)
	}
	if _, err := r.Get(ctx, "../x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("invalid id: %v", err)
	}
}

// Boots placed between two announcements must not overfill a host: of
// many placements racing for a host with room for one, one stands.
func TestReserveRacersNeverOverfillAHost(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	basic := Resources{250, 1024}
	if err := r.Announce(ctx, Record{ID: "h1", Capacity: Resources{500, 2048}, Used: basic}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		var won atomic.Int32
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := r.Reserve(ctx, "h1", "sb"+string(rune('a'+i)), basic, "")
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			}()
		}
		wg.Wait()
		if won.Load() > 1 {
			t.Fatalf("round %d: %d placements stand on a host with room for one", round, won.Load())
		}
		h, _ := r.Get(ctx, "h1")
		if h.Free().MilliCPU < 0 || h.Free().MemoryMiB < 0 {
			t.Fatalf("round %d: host overfilled: %+v", round, h)
		}
		// The announcement that lists the winner clears the reservation
		// (Used counts it now); start over with room for one again.
		if err := r.Announce(ctx, Record{ID: "h1", Capacity: Resources{500, 2048}, Used: basic}); err != nil {
			t.Fatal(err)
		}
		clearReservations(t, r, "h1")
	}
}

func clearReservations(t *testing.T, r *Registry, id string) {
	objs, err := r.store.List(context.Background(), hostKey(id, reservedName))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		_ = r.store.Delete(context.Background(), o.Key)
	}
}

func TestAnnounceDropsReservationsItCounts(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	if err := r.Announce(ctx, Record{ID: "h1", Capacity: Resources{1000, 4096}}); err != nil {
		t.Fatal(err)
	}
	for _, sb := range []string{"x", "y"} {
		if ok, err := r.Reserve(ctx, "h1", sb, Resources{250, 1024}, ""); !ok || err != nil {
			t.Fatalf("reserve %s: %v %v", sb, ok, err)
		}
	}
	if h, _ := r.Get(ctx, "h1"); h.Reserved != (Resources{500, 2048}) {
		t.Fatalf("reserved = %v", h.Reserved)
	}
	if err := r.Announce(ctx, Record{ID: "h1", Capacity: Resources{1000, 4096}, Used: Resources{250, 1024}, Sandboxes: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	h, _ := r.Get(ctx, "h1")
	if h.Reserved != (Resources{250, 1024}) {
		t.Fatalf("after x is announced: reserved = %v, want y's only", h.Reserved)
	}
	objs, _ := r.store.List(ctx, hostKey("h1", reservedName))
	if len(objs) != 1 {
		t.Fatalf("%d reservation objects left, want 1", len(objs))
	}
}

// A host full of warm containers takes as many boots of their type as it
// has warm ones, and no more; other types find it full.
func TestReserveCountsWarmContainersAsRoom(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	basic := Resources{250, 1024}
	rec := Record{ID: "h1", Capacity: Resources{500, 2048}, Used: Resources{500, 2048}, Warm: map[string]int{"basic": 2}}
	if err := r.Announce(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if ok, err := r.Reserve(ctx, "h1", "other", Resources{63, 256}, "lite"); ok || err != nil {
		t.Fatalf("a lite boot on a host full of warm basic containers: %v %v", ok, err)
	}
	for _, sb := range []string{"x", "y"} {
		if ok, err := r.Reserve(ctx, "h1", sb, basic, "basic"); !ok || err != nil {
			t.Fatalf("reserve %s: %v %v", sb, ok, err)
		}
	}
	if ok, err := r.Reserve(ctx, "h1", "z", basic, "basic"); ok || err != nil {
		t.Fatalf("a third basic boot with two warm containers: %v %v", ok, err)
	}
}

// Forget removes everything of one host (record, drain flag,
// reservations) and nothing of another whose id it prefixes; a host
// forgotten that announces itself again is listed again.
func TestForgetRemovesOneHostEntirely(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	if err := r.Forget(ctx, "h1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("forget of a host never seen: %v, want ErrNotFound", err)
	}
	for _, id := range []string{"h1", "h10"} {
		if err := r.Announce(ctx, Record{ID: id, Capacity: Resources{1000, 4096}}); err != nil {
			t.Fatal(err)
		}
		if err := r.SetDraining(ctx, id, true); err != nil {
			t.Fatal(err)
		}
		if ok, err := r.Reserve(ctx, id, "x", Resources{250, 1024}, ""); !ok || err != nil {
			t.Fatalf("reserve on %s: %v %v", id, ok, err)
		}
	}
	if err := r.Forget(ctx, "h1"); err != nil {
		t.Fatal(err)
	}
	if objs, _ := r.store.List(ctx, Prefix+"h1/"); len(objs) != 0 {
		t.Fatalf("forgotten host left %d objects: %v", len(objs), objs)
	}
	hs, err := r.List(ctx)
	if err != nil || len(hs) != 1 || hs[0].ID != "h10" || !hs[0].Draining || hs[0].Reserved != (Resources{250, 1024}) {
		t.Fatalf("after forgetting h1: %+v %v, want h10 untouched", hs, err)
	}
	if err := r.Announce(ctx, Record{ID: "h1", Capacity: Resources{1000, 4096}}); err != nil {
		t.Fatal(err)
	}
	if h, err := r.Get(ctx, "h1"); err != nil || h.Draining || !h.Live {
		t.Fatalf("a forgotten host that announces itself again: %+v %v", h, err)
	}
}
