package doze

import (
	"testing"
	"time"
)

// TestDozeAfterIsValidatedAtTheEdge: a bad dozeAfter on create or patch is
// a 400 VALIDATION_FAILED and changes nothing; 0 turns dozing off, and a
// patch to a dozing sandbox that turns it off thaws it.
func TestDozeAfterIsValidatedAtTheEdge(t *testing.T) {
	n := name("dozeval")
	for _, bad := range []string{`"0.5s"`, `"abc"`, `null`, `-3`, `"200h"`, `{}`} {
		r := stack.Do(t, "POST", "/v1/sandboxes", `{"name":"`+n+`","dozeAfter":`+bad+`}`)
		if r.Status != 400 || r.Code() != "VALIDATION_FAILED" {
			t.Fatalf("create with dozeAfter %s: %d %s", bad, r.Status, r.Body)
		}
	}
	stack.Must(t, 404, "GET", "/v1/sandboxes/"+n, nil) // nothing was claimed
	newSandbox(t, n, createDoze(2*time.Second))
	var v struct {
		DozeAfter string `json:"dozeAfter"`
		Status    string `json:"status"`
	}
	stack.Must(t, 200, "GET", "/v1/sandboxes/"+n, nil).JSON(t, &v)
	if v.DozeAfter != "2s" {
		t.Fatalf("dozeAfter %q, want 2s", v.DozeAfter)
	}
	for _, bad := range []string{`"0.5s"`, `"x"`, `null`, `-1`} {
		r := stack.Do(t, "PATCH", "/v1/sandboxes/"+n, `{"dozeAfter":`+bad+`}`)
		if r.Status != 400 || r.Code() != "VALIDATION_FAILED" {
			t.Fatalf("patch with dozeAfter %s: %d %s", bad, r.Status, r.Body)
		}
	}
	waitStatus(t, n, "dozing", time.Minute)
	// `berth ls --status dozing` (the list reads Temporal's visibility,
	// the search attribute the Temporal UI shows too).
	listed := false
	for deadline := time.Now().Add(30 * time.Second); !listed && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		var l []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		}
		stack.Must(t, 200, "GET", "/v1/sandboxes?status=dozing", nil).JSON(t, &l)
		for _, x := range l {
			listed = listed || x.Name == n && x.Status == "dozing"
		}
	}
	if !listed {
		t.Fatal("the list of dozing sandboxes does not name it")
	}
	v.DozeAfter, v.Status = "", ""
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n, `{"dozeAfter":0}`).JSON(t, &v)
	if v.Status != "running" || v.DozeAfter != "" {
		t.Fatalf("after dozeAfter 0: status %s, dozeAfter %q; want running and none", v.Status, v.DozeAfter)
	}
	waitPaused(t, n, false, time.Second)
}
