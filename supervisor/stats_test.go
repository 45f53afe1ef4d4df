package supervisor

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNetBytesSkipsLoopback(t *testing.T) {
	f := filepath.Join(t.TempDir(), "dev")
	os.WriteFile(f, []byte(`Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  999999       9    0    0    0     0          0         0   999999       9    0    0    0     0       0          0
  eth0:     200       2    0    0    0     0          0         0      300       3    0    0    0     0       0          0
  eth1:      50       1    0    0    0     0          0         0        7       1    0    0    0     0       0          0
`), 0o644)
	rx, tx, ok := netBytes(f)
	if !ok || rx != 250 || tx != 307 {
		t.Fatalf("got rx %d tx %d ok %v, want 250, 307", rx, tx, ok)
	}
	if _, _, ok := netBytes(filepath.Join(t.TempDir(), "none")); ok {
		t.Fatal("no file read as figures")
	}
}

// TestCPUWindow: a read with a base 0.5-30 s old is the rate since it; a
// read right after another repeats the last figure instead of a rate over
// a few milliseconds.
func TestCPUWindow(t *testing.T) {
	var c cpuWindow
	r := httptest.NewRequest("GET", "/v1/stats", nil)
	t0 := time.Now().Add(-time.Hour)
	c.baseAt, c.base = t0, 10*time.Second
	pct, span := c.percent(r, t0.Add(2*time.Second), 11*time.Second) // one CPU second in two
	if pct != 50 || span != 2*time.Second {
		t.Fatalf("got %.1f%% over %s, want 50%% over 2s", pct, span)
	}
	pct, span = c.percent(r, t0.Add(2*time.Second+10*time.Millisecond), 11*time.Second+10*time.Millisecond)
	if pct != 50 || span != 2*time.Second {
		t.Fatalf("a read 10ms later: %.1f%% over %s, want the last figure (50%% over 2s)", pct, span)
	}
}
