package hosts

import (
	"slices"
	"testing"
	"time"

	"github.com/berthdev/berth/workflows/contract"
)

func host(id string, live, draining bool, capCPU, capMiB, usedCPU, usedMiB int64) Host {
	return Host{Record: Record{ID: id, Capacity: Resources{capCPU, capMiB}, Used: Resources{usedCPU, usedMiB}},
		Live: live, Draining: draining}
}

func TestChoosePlacement(t *testing.T) {
	basic := Resources{250, 1024}
	hs := []Host{
		host("a", true, false, 2000, 8192, 1000, 4096), // half full
		host("b", true, false, 2000, 8192, 250, 1024),  // nearly empty
		host("c", true, false, 2000, 8192, 2000, 8192), // full
		host("d", true, true, 4000, 16384, 0, 0),       // draining
		host("e", false, false, 4000, 16384, 0, 0),     // dead
		host("f", true, false, 2000, 8192, 1000, 7680), // memory nearly full: 512 MiB left
		host("g", true, false, 2000, 8192, 1900, 1024), // CPU nearly full: 100 mCPU left
	}
	cases := []struct {
		name   string
		in     contract.PlaceInput
		want   []string
		prefer bool
	}{
		{"most free first; full, draining, dead and too-small hosts skipped", contract.PlaceInput{}, []string{"b", "a"}, false},
		{"preferred host first while it has room", contract.PlaceInput{PreferHost: "a"}, []string{"a", "b"}, true},
		{"full preferred host: elsewhere", contract.PlaceInput{PreferHost: "c"}, []string{"b", "a"}, true},
		{"draining preferred host: elsewhere", contract.PlaceInput{PreferHost: "d"}, []string{"b", "a"}, true},
		{"dead preferred host: elsewhere, said so", contract.PlaceInput{PreferHost: "e"}, []string{"b", "a"}, false},
		{"unknown preferred host", contract.PlaceInput{PreferHost: "zz"}, []string{"b", "a"}, false},
		{"excluded hosts skipped", contract.PlaceInput{PreferHost: "a", Exclude: []string{"a"}}, []string{"b"}, true},
		{"sticky: only the preferred host", contract.PlaceInput{PreferHost: "a", Sticky: true}, []string{"a"}, true},
		{"sticky, preferred full: nothing", contract.PlaceInput{PreferHost: "c", Sticky: true}, nil, true},
		{"sticky, preferred draining: nothing", contract.PlaceInput{PreferHost: "d", Sticky: true}, nil, true},
		{"sticky, preferred dead: the others, PreferredLive false", contract.PlaceInput{PreferHost: "e", Sticky: true}, []string{"b", "a"}, false},
	}
	for _, c := range cases {
		got := Choose(hs, c.in, basic)
		if !slices.Equal(got.Candidates, c.want) || got.PreferredLive != c.prefer {
			t.Errorf("%s: got %v preferredLive=%v, want %v %v", c.name, got.Candidates, got.PreferredLive, c.want, c.prefer)
		}
	}
	// A bigger type fits fewer hosts.
	if got := Choose(hs, contract.PlaceInput{}, Resources{2000, 8192}); len(got.Candidates) != 0 {
		t.Errorf("standard-3 on these hosts: got %v, want none", got.Candidates)
	}
}

func TestChooseCountsReservations(t *testing.T) {
	h := host("a", true, false, 500, 2048, 250, 1024)
	h.Reserved = Resources{250, 1024}
	if got := Choose([]Host{h}, contract.PlaceInput{}, Resources{250, 1024}); len(got.Candidates) != 0 {
		t.Fatalf("host with its last room reserved was chosen: %v", got.Candidates)
	}
}

func TestPendingReservations(t *testing.T) {
	now := time.Now()
	rec := Record{ID: "a", Sandboxes: []string{"running"}}
	rs := []reservation{
		{key: "1", sandbox: "running", need: Resources{1, 1}, at: now},                  // listed: in Used already
		{key: "2", sandbox: "old", need: Resources{1, 1}, at: now.Add(-ReservationTTL)}, // expired
		{key: "3", sandbox: "retry", need: Resources{1, 1}, at: now.Add(-time.Second)},  // replaced by 4
		{key: "4", sandbox: "retry", need: Resources{2, 2}, at: now},
		{key: "5", sandbox: "fresh", need: Resources{4, 4}, at: now},
	}
	var sum Resources
	for _, r := range pending(rec, rs, now) {
		sum = sum.Add(r.need)
	}
	if sum != (Resources{6, 6}) {
		t.Fatalf("pending reservations sum to %v, want {6 6}", sum)
	}
}

func TestReservationKeyRoundTrip(t *testing.T) {
	at := time.UnixMilli(1764590000123)
	k := reservationKey("h-1", "my-box", Resources{63, 256}, at)
	r, ok := parseReservation(k)
	if !ok || r.sandbox != "my-box" || r.need != (Resources{63, 256}) || !r.at.Equal(at) {
		t.Fatalf("parse %q: %+v %v", k, r, ok)
	}
	for _, bad := range []string{Prefix + "h/reserved/x.1.2", Prefix + "h/record.json", Prefix + "h/reserved/.1.2.3"} {
		if _, ok := parseReservation(bad); ok {
			t.Errorf("%q parsed as a reservation", bad)
		}
	}
}

// A host with a warm container of the type comes first (the boot skips
// making its container), and counts as having room even when its warm
// containers fill it: claiming one adds nothing.
func TestChoosePrefersWarmHosts(t *testing.T) {
	basic := Resources{250, 1024}
	roomy := host("a", true, false, 2000, 8192, 0, 0)
	warmFull := host("b", true, false, 500, 2048, 500, 2048) // full of its two warm containers
	warmFull.Warm = map[string]int{"basic": 2}
	in := contract.PlaceInput{InstanceType: "basic"}
	if got := Choose([]Host{roomy, warmFull}, in, basic).Candidates; !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("basic: got %v, want the warm host first", got)
	}
	in.InstanceType = "lite"
	if got := Choose([]Host{roomy, warmFull}, in, Resources{63, 256}).Candidates; !slices.Equal(got, []string{"a"}) {
		t.Errorf("lite (no warm one): got %v, want only the host with room", got)
	}
}
