package supervisor_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

type activityView struct {
	InFlight       int        `json:"inFlight"`
	Processes      int        `json:"processes"`
	HeldUntil      *time.Time `json:"heldUntil"`
	LastActivityAt time.Time  `json:"lastActivityAt"`
	IdleMs         int64      `json:"idleMs"`
}

// TestActivityPostNeedsTheBootsToken: POST /v1/activity is a supervisor
// route like the others: without the boot's token (or with another
// boot's) it is 401 and records nothing.
func TestActivityPostNeedsTheBootsToken(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	time.Sleep(200 * time.Millisecond)
	for _, auth := range []string{"", "Bearer wrong-token", "Basic " + a.inst.Token} {
		req, err := http.NewRequest("POST", a.inst.URL+"/v1/activity", strings.NewReader(`{"openFor":"30s"}`))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("POST /v1/activity with %q: %d, want 401", auth, resp.StatusCode)
		}
	}
	var r activityView
	a.must("GET", "/v1/activity", nil, 200, &r)
	if r.IdleMs < 150 || r.HeldUntil != nil {
		t.Fatalf("refused touches counted as activity: %+v", r)
	}
}

// TestActivityPostMarksNowAndHolds: a touch resets the idle time; a touch
// with openFor keeps the sandbox busy (idleMs 0) until the hold ends, and
// the idle time then counts from the hold's end, as from a request's.
// A process that ends during the hold does not end it.
func TestActivityPostMarksNowAndHolds(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	time.Sleep(200 * time.Millisecond)
	var r activityView
	a.must("POST", "/v1/activity", nil, 200, &r)
	if r.IdleMs > 50 || r.HeldUntil != nil {
		t.Fatalf("after a plain touch: %+v", r)
	}

	p := a.run("sleep", "0.2")
	a.must("POST", "/v1/activity", map[string]any{"openFor": "600ms"}, 200, &r)
	if r.IdleMs != 0 || r.HeldUntil == nil || time.Until(*r.HeldUntil) < 400*time.Millisecond {
		t.Fatalf("after a touch with a hold: %+v", r)
	}
	held := *r.HeldUntil
	a.wait(p.ID)
	a.must("GET", "/v1/activity", nil, 200, &r)
	if r.Processes != 0 || r.IdleMs != 0 {
		t.Fatalf("the process's end ended the hold: %+v", r)
	}
	// A shorter hold does not shorten a longer one.
	a.must("POST", "/v1/activity", map[string]any{"openFor": 0.1}, 200, &r)
	if r.HeldUntil == nil || !r.HeldUntil.Equal(held) {
		t.Fatalf("a shorter hold replaced a longer one: %+v, held until %v", r, held)
	}

	time.Sleep(time.Until(held) + 150*time.Millisecond)
	r = activityView{}
	a.must("GET", "/v1/activity", nil, 200, &r)
	if r.HeldUntil != nil || r.IdleMs < 100 || r.IdleMs > 400 || !r.LastActivityAt.Equal(held) {
		t.Fatalf("after the hold (until %v): %+v; idle must count from the hold's end", held, r)
	}
}

// TestActivityPostRefusesBadHolds: 400 for a hold over a minute, a
// negative or malformed one and unknown fields; none is recorded.
func TestActivityPostRefusesBadHolds(t *testing.T) {
	a := newAPI(t, supervisortest.Options{})
	for _, body := range []string{`{"openFor":"61s"}`, `{"openFor":"-1s"}`, `{"openFor":"soon"}`,
		`{"hold":"1s"}`, `{"openFor":"1s"} {}`, `[]`} {
		a.mustFail("POST", "/v1/activity", body, 400, "VALIDATION_FAILED")
	}
	var r activityView // (fresh: a field left out of the answer stays as it was)
	a.must("GET", "/v1/activity", nil, 200, &r)
	if r.HeldUntil != nil {
		t.Fatalf("a refused hold was recorded: %+v", r)
	}
	a.must("POST", "/v1/activity", `{"openFor":"1m"}`, 200, &r)
	if r.HeldUntil == nil {
		t.Fatalf("a hold of 1m (the maximum) was refused: %+v", r)
	}
}
