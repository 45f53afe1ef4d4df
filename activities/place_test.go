package activities

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/workflows/contract"
)

func placeFixture(t *testing.T, recs ...hosts.Record) *Activities {
	store, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := hosts.New(store)
	for _, r := range recs {
		if err := reg.Announce(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	return &Activities{Hosts: reg, InstanceTypes: config.BuiltinInstanceTypes()}
}

// Two boots placed at once on two hosts with room for one basic each land
// on different hosts, and a third finds no capacity.
func TestPlaceConcurrentBootsSpreadAndThenNoCapacity(t *testing.T) {
	room := hosts.Resources{MilliCPU: 250, MemoryMiB: 1024}
	a := placeFixture(t, hosts.Record{ID: "h1", Capacity: room}, hosts.Record{ID: "h2", Capacity: room})
	ctx := context.Background()
	got := make([]string, 2)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.Place(ctx, contract.PlaceInput{Sandbox: []string{"one", "two"}[i], InstanceType: "basic"})
			if err != nil {
				t.Error(err)
			}
			got[i] = res.Host
		}()
	}
	wg.Wait()
	if got[0] == got[1] || got[0] == "" || got[1] == "" {
		t.Fatalf("two boots placed at once went to %v; each host has room for one", got)
	}
	_, err := a.Place(ctx, contract.PlaceInput{Sandbox: "three", InstanceType: "basic"})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != contract.ErrNoCapacity || !app.NonRetryable() {
		t.Fatalf("third boot: %v, want a non-retryable %s", err, contract.ErrNoCapacity)
	}
	t.Log(app.Message())
}

func TestPlaceStickyAndInputChecks(t *testing.T) {
	big := hosts.Resources{MilliCPU: 4000, MemoryMiB: 16384}
	a := placeFixture(t, hosts.Record{ID: "h1", Capacity: big, Used: big}, hosts.Record{ID: "h2", Capacity: big})
	ctx := context.Background()
	// The volume host is full: a sticky boot cannot go elsewhere.
	_, err := a.Place(ctx, contract.PlaceInput{Sandbox: "s", InstanceType: "lite", PreferHost: "h1", Sticky: true})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != contract.ErrNoCapacity {
		t.Fatalf("sticky on a full host: %v", err)
	}
	res, err := a.Place(ctx, contract.PlaceInput{Sandbox: "s", InstanceType: "lite", PreferHost: "h1"})
	if err != nil || res.Host != "h2" || !res.PreferredLive {
		t.Fatalf("non-sticky on a full preferred host: %+v %v", res, err)
	}
	for _, in := range []contract.PlaceInput{{Sandbox: "s", InstanceType: "nope"}, {Sandbox: "../x", InstanceType: "lite"}} {
		_, err := a.Place(ctx, in)
		if !errors.As(err, &app) || app.Type() != contract.ErrValidation || !app.NonRetryable() {
			t.Errorf("%+v: %v, want a validation error", in, err)
		}
	}
}

// The workflow schedules Place by contract.ActivityPlace: it must stay a
// method of Activities taking and returning the contract's types.
func TestPlaceIsTheContractActivity(t *testing.T) {
	m, ok := reflect.TypeFor[*Activities]().MethodByName(contract.ActivityPlace)
	if !ok {
		t.Fatalf("%s is not a method of *Activities", contract.ActivityPlace)
	}
	want := reflect.TypeOf((*Activities).Place)
	if m.Type != want || m.Type.In(2) != reflect.TypeFor[contract.PlaceInput]() || m.Type.Out(0) != reflect.TypeFor[contract.PlaceResult]() {
		t.Fatalf("%s has signature %v", contract.ActivityPlace, m.Type)
	}
}

// A boot placed again (its first host did not take it in time) frees the
// room the first placement reserved.
func TestPlaceAgainReleasesTheEarlierReservation(t *testing.T) {
	room := hosts.Resources{MilliCPU: 250, MemoryMiB: 1024}
	a := placeFixture(t, hosts.Record{ID: "h1", Capacity: room}, hosts.Record{ID: "h2", Capacity: room})
	ctx := context.Background()
	first, err := a.Place(ctx, contract.PlaceInput{Sandbox: "s", InstanceType: "basic"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.Place(ctx, contract.PlaceInput{Sandbox: "s", InstanceType: "basic", Exclude: []string{first.Host}})
	if err != nil || second.Host == first.Host {
		t.Fatalf("placed again: %+v %v", second, err)
	}
	h, err := a.Hosts.Get(ctx, first.Host)
	if err != nil || h.Reserved != (hosts.Resources{}) {
		t.Fatalf("the first host still holds %v for the sandbox (%v)", h.Reserved, err)
	}
}

// Place run as the workflow's local activity, in a worker whose host has a
// warm container ready, puts the boot there ahead of an emptier warm host
// and says the workflow may claim in place (Local); run on a queue, or
// with the pool empty, it keeps the order by free capacity. The sandbox's
// own host stays first.
func TestPlacePrefersItsOwnHostWhenItCanClaimInPlace(t *testing.T) {
	big, small := hosts.Resources{MilliCPU: 16000, MemoryMiB: 65536}, hosts.Resources{MilliCPU: 4000, MemoryMiB: 16384}
	warmBasic := map[string]int{"basic": 1}
	a := placeFixture(t, hosts.Record{ID: "h1", Capacity: big, Warm: warmBasic}, hosts.Record{ID: "h2", Capacity: small, Warm: warmBasic},
		hosts.Record{ID: "h3", Capacity: small})
	a.HostID, a.LocalBoots = "h2", true
	a.Pool = &WarmPool{ready: map[string][]warm{"basic": {{Name: "berthpool-x", ID: "x"}}}}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	place := func(local bool, in contract.PlaceInput) contract.PlaceResult {
		t.Helper()
		run := env.ExecuteActivity
		if local {
			run = env.ExecuteLocalActivity
		}
		v, err := run(a.Place, in)
		if err != nil {
			t.Fatal(err)
		}
		var res contract.PlaceResult
		if err := v.Get(&res); err != nil {
			t.Fatal(err)
		}
		// Each placement reserves room: release it for the next.
		if err := a.Hosts.Release(context.Background(), res.Host, in.Sandbox); err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := place(true, contract.PlaceInput{Sandbox: "s1", InstanceType: "basic"}); res.Host != "h2" || !res.Local {
		t.Errorf("local Place with a warm container here: %+v, want h2 and local", res)
	}
	if res := place(false, contract.PlaceInput{Sandbox: "s2", InstanceType: "basic"}); res.Host != "h1" || res.Local {
		t.Errorf("Place on a queue: %+v, want h1 (most free), not local", res)
	}
	if res := place(true, contract.PlaceInput{Sandbox: "s3", InstanceType: "basic", PreferHost: "h3"}); res.Host != "h3" || res.Local {
		t.Errorf("local Place of a sandbox whose workspace is on h3: %+v, want h3", res)
	}
	if res := place(true, contract.PlaceInput{Sandbox: "s4", InstanceType: "lite"}); res.Host != "h1" || res.Local {
		t.Errorf("local Place with no warm container of the type here: %+v, want h1, not local", res)
	}
	a.Pool.ready = map[string][]warm{}
	if res := place(true, contract.PlaceInput{Sandbox: "s5", InstanceType: "basic"}); res.Host != "h1" || res.Local {
		t.Errorf("local Place with the pool empty: %+v, want h1, not local", res)
	}
}

// A sandbox whose container is gone before its host announced it gives
// its room back at once: the next boot fits on a host with room for one,
// instead of NO_CAPACITY until the reservation's TTL ends.
func TestRemovedSandboxGivesItsRoomBackBeforeTheNextAnnouncement(t *testing.T) {
	room := hosts.Resources{MilliCPU: 250, MemoryMiB: 1024}
	a := placeFixture(t, hosts.Record{ID: "h1", Capacity: room})
	a.HostID = "h1"
	ctx := context.Background()
	if _, err := a.Place(ctx, contract.PlaceInput{Sandbox: "one", InstanceType: "basic"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Place(ctx, contract.PlaceInput{Sandbox: "two", InstanceType: "basic"}); err == nil {
		t.Fatal("a second boot fit on a host with room for one")
	}
	a.releaseRoom(ctx, "one") // what Stop and Destroy do once the container is removed
	if res, err := a.Place(ctx, contract.PlaceInput{Sandbox: "two", InstanceType: "basic"}); err != nil || res.Host != "h1" {
		t.Fatalf("after the first sandbox's removal: %+v, %v", res, err)
	}
}
