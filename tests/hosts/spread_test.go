package hosts

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/stacktest"
)

// TestSpreadByCapacitySkipsFullHost: three netns hosts, the only ones
// placement may use, sized in lite sandboxes (memory decides: 1 vCPU each
// holds 15): A 600 MiB (2, with 88 MiB over), B and C 768 MiB (3 each).
// Eight lite sandboxes started one after another with no steering go,
// by most free capacity after the boot (the smaller of the CPU and memory
// fractions):
//
//	#1 #2  B, C   (2/3 free after, against A's 0.57)
//	#3     A      (0.57 against 1/3)
//	#4 #5  B, C   (1/3 against A's 0.15)
//	#6     A      (0.15 against 0): A is now full, 88 MiB left
//	#7 #8  B, C   (A is skipped: a lite does not fit)
//
// and a ninth is refused 503 NO_CAPACITY. GET /v1/hosts shows each host's
// capacity and its load (its sandboxes' limits), and `berth hosts` lists
// them so.
func TestSpreadByCapacitySkipsFullHost(t *testing.T) {
	needFull(t)
	hs := liteHosts(t, "p")
	a, b, c := hs[0], hs[1], hs[2]

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var placed []string
	count := map[string]int{}
	for i := range 8 {
		n := liteSandbox(t, fmt.Sprintf("spread%d", i+1))
		start := time.Now()
		info, err := api().Start(ctx, n)
		require.NoError(t, err, "start #%d (placed so far: %v)", i+1, placed)
		t.Logf("#%d %s on %s in %s", i+1, n, info.Host, time.Since(start).Round(10*time.Millisecond))
		placed = append(placed, info.Host)
		count[info.Host]++
	}
	name := map[string]string{a.ID: "A", b.ID: "B", c.ID: "C"}
	var seq []string
	for _, id := range placed {
		seq = append(seq, name[id])
	}
	require.Len(t, count, 3, "only the three hosts were used: %v", placed)
	require.ElementsMatch(t, []string{"B", "C"}, seq[0:2], "the two roomiest hosts first: %v", seq)
	require.Equal(t, "A", seq[2], "then A, the most free after the boot: %v", seq)
	require.ElementsMatch(t, []string{"B", "C"}, seq[3:5], "%v", seq)
	require.Equal(t, "A", seq[5], "%v", seq)
	require.ElementsMatch(t, []string{"B", "C"}, seq[6:8], "A, full, is skipped: %v", seq)

	n := liteSandbox(t, "spread9")
	_, err := api().Start(ctx, n)
	var e *client.Error
	require.True(t, errors.As(err, &e), "a ninth sandbox does not fit anywhere: %v", err)
	require.Equal(t, 503, e.Status)
	require.Equal(t, string(client.ErrNoCapacity), e.Code)
	require.True(t, e.Retryable, "room may free up")
	require.Positive(t, e.RetryAfter)
	require.NotContains(t, e.Message, "retryable: false", "a retryable refusal does not say otherwise")
	t.Logf("ninth refused: %s", e.Message)

	// The registry, once every host announced its containers, counts each
	// host's sandboxes' limits.
	lite := hosts.Need(config.BuiltinInstanceTypes()["lite"])
	stacktest.WaitFor(t, 3*time.Minute, "every host to announce its load", func() (bool, string) {
		list := hostList(t)
		for _, h := range hs {
			got, k := list[h.ID], int64(count[h.ID])
			if got.Sandboxes != count[h.ID] || got.Used.MemoryMiB != k*lite.MemoryMiB || got.Used.MilliCPU != k*lite.MilliCPU || got.Reserved.MemoryMiB != 0 {
				return false, fmt.Sprintf("%s: %+v", h.ID, got)
			}
		}
		return true, ""
	})
	list := hostList(t)
	for _, h := range hs {
		got := list[h.ID]
		require.True(t, got.Live)
		require.EqualValues(t, 1000, got.Capacity.MilliCPU)
		t.Logf("%s: %d sandboxes, used %+v of %+v", h.ID, got.Sandboxes, got.Used, got.Capacity)
	}
	require.EqualValues(t, 600, list[a.ID].Capacity.MemoryMiB)
	require.EqualValues(t, 768, list[b.ID].Capacity.MemoryMiB)

	out, err := berthCLI(t, "hosts")
	require.NoError(t, err, out)
	for _, h := range hs {
		k := count[h.ID]
		cpu := fmt.Sprintf(`%.2f/1\.00`, float64(int64(k)*lite.MilliCPU)/1000)
		mem := fmt.Sprintf(`%d\.0 MiB/%d\.0 MiB`, int64(k)*lite.MemoryMiB, list[h.ID].Capacity.MemoryMiB)
		// No warm pool on these hosts: "-" under WARM.
		require.Regexp(t, regexp.QuoteMeta(h.ID)+`\s+live\s+`+fmt.Sprint(k)+`\s+-\s+`+cpu+` \(\d+%\)\s+`+mem, out)
	}
	t.Logf("berth hosts:\n%s", out)
}

// liteHosts brings up hosts A, B and C (named prefix+"a", "b", "c", in
// that order by id) holding 2, 3 and 3 lite sandboxes (600, 768 and 768
// MiB; 1 vCPU each), the only hosts placement may use until the test ends.
func liteHosts(t testing.TB, prefix string) []*stacktest.Host {
	t.Helper()
	a, b, c := prefix+"a", prefix+"b", prefix+"c"
	hs := addHosts(t, map[string][]string{
		a: {"BERTH_HOST_CPUS=1", "BERTH_HOST_MEMORY=600"},
		b: {"BERTH_HOST_CPUS=1", "BERTH_HOST_MEMORY=768"},
		c: {"BERTH_HOST_CPUS=1", "BERTH_HOST_MEMORY=768"},
	}, a, b, c)
	onlyHosts(t, hs...)
	waitLive(t, hs...)
	return hs
}

// waitLive waits until GET /v1/hosts shows each host live (announced).
func waitLive(t testing.TB, hs ...*stacktest.Host) {
	t.Helper()
	stacktest.WaitFor(t, 30*time.Second, "the hosts to announce themselves", func() (bool, string) {
		list := hostList(t)
		for _, h := range hs {
			if !list[h.ID].Live {
				return false, h.ID
			}
		}
		return true, ""
	})
}
