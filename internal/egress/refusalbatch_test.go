package egress

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/berthdev/berth/schemas"
)

// Code refused in a loop yields few, bounded reports: one per window,
// windows no closer than the interval, the first distinct refusals listed
// with their counts and the rest counted; texts truncated; no report for
// an unknown source.
func TestRefusalBatcherSumsAndSpacesReports(t *testing.T) {
	var mu sync.Mutex
	type sent struct {
		at time.Time
		sb string
		r  schemas.EgressRefused
	}
	var got []sent
	b := &RefusalBatcher{Gather: 100 * time.Millisecond, Interval: 400 * time.Millisecond, MaxInterval: 2 * time.Second,
		Send: func(sb string, r schemas.EgressRefused) {
			mu.Lock()
			got = append(got, sent{time.Now(), sb, r})
			mu.Unlock()
		}}
	reports := func() []sent { mu.Lock(); defer mu.Unlock(); return append([]sent(nil), got...) }
	dst := netip.MustParseAddrPort("203.0.113.9:443")
	start := time.Now()
	b.Add(Refusal{Source: netip.MustParseAddr("172.18.0.9"), Kind: "connect", Reason: "unknown source address"})
	for i := range 100 {
		b.Add(Refusal{Sandbox: "sb1", Kind: "http", Host: fmt.Sprintf("h%d.example", i%7), Destination: dst, Reason: "host not in the allowlist"})
	}
	b.Add(Refusal{Sandbox: "sb1", Kind: "dns", Host: strings.Repeat("a", 600), Reason: "name not in the allowlist"})
	time.Sleep(300 * time.Millisecond)
	rs := reports()
	if len(rs) != 1 || rs[0].sb != "sb1" {
		t.Fatalf("want one report for sb1, got %+v", rs)
	}
	r := rs[0].r
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	if r.Count != 101 || r.ByKind.HTTP != 100 || r.ByKind.DNS != 1 || len(r.First) != schemas.MaxRefusalsListed || r.Omitted != 3 {
		t.Fatalf("report %+v", r)
	}
	sum := 0
	for _, f := range r.First {
		sum += f.Count
	}
	if sum != 15+15+14+14+14 { // h0..h4 of 100 requests over 7 hosts
		t.Fatalf("listed counts sum to %d: %+v", sum, r.First)
	}

	// More refusals right away: the next report waits for the interval.
	for i := range 10 {
		b.Add(Refusal{Sandbox: "sb1", Kind: "dns", Host: strings.Repeat("é", 300) + fmt.Sprint(i), Reason: "name not in the allowlist"})
	}
	time.Sleep(700 * time.Millisecond)
	rs = reports()
	if len(rs) != 2 {
		t.Fatalf("want a second report, got %d", len(rs))
	}
	if gap := rs[1].at.Sub(rs[0].at); gap < 400*time.Millisecond {
		t.Fatalf("reports %v apart, interval 400ms", gap)
	}
	if err := rs[1].r.Check(); err != nil {
		t.Fatal(err)
	}
	if h := rs[1].r.First[0].Host; len(h) > schemas.MaxRefusalText || !strings.HasSuffix(h, "…") {
		t.Fatalf("host not truncated: %d bytes", len(h))
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("too slow")
	}
}
