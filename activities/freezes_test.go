package activities

import (
	"context"
	"testing"
	"time"
)

// A direct thaw waits while an activity holds the container (a stop, a
// destroy, a snapshot), and gives up at its deadline rather than land
// inside it; once released it finds what the activity left.
func TestAHeldContainerIsNotThawedUntilReleased(t *testing.T) {
	var fs freezes
	f, err := fs.hold(context.Background(), "c1", "s1")
	if err != nil {
		t.Fatal(err)
	}
	f.token = 7
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := fs.hold(ctx, "c1", ""); err == nil {
		t.Fatal("a second holder got in while the first held the container")
	}
	got := make(chan *freeze)
	go func() {
		g, _ := fs.hold(context.Background(), "c1", "")
		got <- g
	}()
	f.token = 0 // what a stop does before it lets go
	f.release()
	g := <-got
	if g.token != 0 || g.sandbox != "s1" {
		t.Fatalf("after the release: token %d sandbox %q", g.token, g.sandbox)
	}
	g.release()
}

func TestDestroyHoldsEveryContainerOfItsSandbox(t *testing.T) {
	var fs freezes
	for _, id := range []string{"a", "b"} {
		f, _ := fs.hold(context.Background(), id, "s1")
		f.token = 1
		f.release()
	}
	f, _ := fs.hold(context.Background(), "c", "s2")
	f.release()
	held, err := fs.holdSandbox(context.Background(), "s1")
	if err != nil || len(held) != 2 {
		t.Fatalf("held %d, %v", len(held), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := fs.hold(ctx, "a", ""); err == nil {
		t.Fatal("a direct thaw got into a container being destroyed")
	}
	for _, h := range held {
		h.release()
	}
	fs.forgetSandbox("s1")
	if len(fs.m) != 1 {
		t.Fatalf("%d entries left, want s2's only", len(fs.m))
	}
}
