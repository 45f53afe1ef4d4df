package egress

import (
	"net/netip"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A sandbox refused in a loop gets a bounded number of log lines; every
// refusal still reaches OnRefusal, and another sandbox is still logged.
func TestRefusalLogsAreRateLimitedPerSandbox(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	n := 0
	r := reporter{log: zap.New(core), on: func(Refusal) { n++ }, limit: &logLimiter{}}
	src := netip.MustParseAddr("10.0.0.2")
	for range 1000 {
		r.refuse(Refusal{Sandbox: "sb-loud-rate-test", Source: src, Kind: "connect", Reason: "r"})
	}
	r.refuse(Refusal{Sandbox: "sb-quiet-rate-test", Source: src, Kind: "connect", Reason: "r"})
	if n != 1001 {
		t.Fatalf("OnRefusal saw %d of 1001", n)
	}
	about := func(sandbox string) int {
		return logs.Filter(func(e observer.LoggedEntry) bool { return e.ContextMap()["sandbox"] == sandbox }).Len()
	}
	loud := about("sb-loud-rate-test")
	if loud > refusalLogBurst+1 || loud == 0 {
		t.Fatalf("%d log lines for 1000 refusals of one sandbox", loud)
	}
	if about("sb-quiet-rate-test") != 1 {
		t.Fatal("another sandbox's refusal was not logged")
	}
}
