package tokens

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/blob"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func twoGateways(t *testing.T, ttl time.Duration) (a, b *Store, clk *clock) {
	fs, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clk = &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	a, b = New(fs, ttl), New(fs, ttl)
	a.now, b.now = clk.now, clk.now
	return a, b, clk
}

func TestMintedTokenAuthenticatesAndOnlyItsHashIsStored(t *testing.T) {
	a, _, clk := twoGateways(t, time.Second)
	ctx := context.Background()
	rec, value, err := a.Mint(ctx, Record{Name: "ci", Sandboxes: []string{"job-*"}, Scopes: []string{"read"},
		CreatedAt: clk.now(), ExpiresAt: clk.now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(value, "bt_"+rec.ID+"_") || len(value) < 40 {
		t.Fatalf("value %q does not carry its id %s", value, rec.ID)
	}
	got, err := a.Authenticate(ctx, value)
	if err != nil || got.Name != "ci" {
		t.Fatalf("Authenticate = %+v, %v", got, err)
	}
	// The stored object holds the hash, not the value.
	r, err := a.blob.Get(ctx, key(rec.ID))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := r.Read(buf)
	r.Close()
	secret := value[strings.LastIndex(value, "_")+1:]
	if strings.Contains(string(buf[:n]), secret) {
		t.Fatalf("the stored record holds the token's secret: %s", buf[:n])
	}
	// A wrong secret with a real id, and garbage, are refused alike.
	for _, bad := range []string{value[:len(value)-2] + "xx", "bt_" + rec.ID, "bt_zz_x", "admin", ""} {
		if _, err := a.Authenticate(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Authenticate(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	clk.add(time.Hour)
	if _, err := a.Authenticate(ctx, value); !errors.Is(err, ErrExpired) {
		t.Fatalf("after its lifetime: %v, want ErrExpired", err)
	}
}

// TestRevocationReachesAnotherGatewayWithinTheCacheBound: the revoking
// gateway refuses at once; another one that had the token cached accepts
// it until its cache entry is CacheTTL old, and never after.
func TestRevocationReachesAnotherGatewayWithinTheCacheBound(t *testing.T) {
	const ttl = 5 * time.Second
	a, b, clk := twoGateways(t, ttl)
	ctx := context.Background()
	rec, value, err := a.Mint(ctx, Record{Name: "x", Scopes: []string{"read"}, CreatedAt: clk.now(), ExpiresAt: clk.now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Authenticate(ctx, value); err != nil {
		t.Fatal(err) // b caches it now
	}
	clk.add(time.Second)
	if err := a.Revoke(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Authenticate(ctx, value); !errors.Is(err, ErrInvalid) {
		t.Fatalf("the revoking gateway still accepts the token: %v", err)
	}
	if _, err := b.Authenticate(ctx, value); err != nil {
		t.Fatalf("inside its cache bound b answered %v; the bound is what this test measures, so the cache must be in use", err)
	}
	clk.add(ttl - time.Second)
	if _, err := b.Authenticate(ctx, value); !errors.Is(err, ErrInvalid) {
		t.Fatalf("%s after b read it, b still accepts a revoked token: %v", ttl, err)
	}
	if err := a.Revoke(ctx, rec.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second revoke: %v, want ErrNotFound", err)
	}
	list, err := b.List(ctx)
	if err != nil || len(list) != 0 {
		t.Fatalf("List after revoke = %v, %v", list, err)
	}
}
