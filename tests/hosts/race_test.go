package hosts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/workflows/contract"
)

// TestConcurrentStartsNeverOverfill: nine lite sandboxes started all at
// once on hosts holding 2, 3 and 3 (liteHosts): placements race, and each
// reservation is checked against the others', so no host runs more than
// it holds, exactly eight boot and the ninth is refused NO_CAPACITY
// (unless a host failed to pick a boot up at all, see below).
func TestConcurrentStartsNeverOverfill(t *testing.T) {
	needFull(t)
	hs := liteHosts(t, "q")
	holds := map[string]int{hs[0].ID: 2, hs[1].ID: 3, hs[2].ID: 3}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var names []string
	for i := range 9 {
		names = append(names, liteSandbox(t, fmt.Sprintf("race%d", i+1)))
	}
	hostOf := make([]string, len(names))
	errs := make([]error, len(names))
	start := time.Now()
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := api().Start(ctx, n)
			errs[i] = err
			if err == nil {
				hostOf[i] = info.Host
			}
		}()
	}
	wg.Wait()
	t.Logf("nine concurrent starts answered in %s", time.Since(start).Round(10*time.Millisecond))
	count := map[string]int{}
	refused, unreached := 0, 0
	for i, err := range errs {
		if err == nil {
			count[hostOf[i]]++
			continue
		}
		var e *client.Error
		require.True(t, errors.As(err, &e), "%v", err)
		require.Equal(t, string(client.ErrNoCapacity), e.Code, "%v", err)
		refused++
		if !strings.Contains(e.Message, " 0 unreachable for this boot") {
			unreached++
		}
		t.Logf("refused: %s", e.Message)
	}
	t.Logf("placed: %v", count)
	for id, k := range count {
		require.LessOrEqual(t, k, holds[id], "host %s overfilled: %v", id, count)
	}
	require.GreaterOrEqual(t, refused, 1, "nine do not fit in eight: %v", count)
	if unreached > 0 {
		// A live host whose queue did not pick a boot up within
		// HostScheduleToStart is excluded for that boot (seen on this
		// machine now and then under load): fewer than eight may boot
		// then, which is not what this test is about.
		t.Logf("%d refusals followed a host that did not pick up the boot in %s", unreached, contract.HostScheduleToStart)
		return
	}
	require.Equal(t, 1, refused, "exactly one of nine does not fit; the others found room: %v", count)
	require.Equal(t, holds, count)
}
