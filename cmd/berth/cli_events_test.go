package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/schemas"
)

// TestEventLineEscapes: a backup error quoting a workspace file name, and
// a payload the CLI does not know, print without control characters.
func TestEventLineEscapes(t *testing.T) {
	payload, _ := json.Marshal(schemas.BackupFailed{Error: "open /workspace/x\x1b]0;pwned\x07: permission denied"})
	line := eventLine(client.Event{Offset: 3, Type: api.EventBackupFailed, Payload: payload, CreatedAt: time.Now()}, false)
	if strings.ContainsAny(line, "\x1b\x07\n") || !strings.Contains(line, `/workspace/x\x1b]0;pwned\a: permission denied`) {
		t.Fatalf("eventLine = %q", line)
	}
	// Unknown types print their raw payload: JSON escapes controls there,
	// but not C1 controls written as UTF-8.
	line = eventLine(client.Event{Type: "x/unknown", Payload: json.RawMessage("{\"a\":\"\u009b2J\"}")}, false)
	if strings.ContainsRune(line, '\u009b') || !strings.Contains(line, `\u009b2J`) {
		t.Fatalf("eventLine = %q", line)
	}
}

// TestEventLineSaysWhoCausedIt: berth events names the token, the admin
// or the system behind each event.
func TestEventLineSaysWhoCausedIt(t *testing.T) {
	for _, c := range []struct {
		actor *api.Actor
		want  string
	}{
		{&api.Actor{Kind: api.ActorToken, ID: "0123456789abcdef", Name: "ci bot"}, "by ci_bot(0123456789abcdef)"},
		{&api.Actor{Kind: api.ActorAdmin}, "by admin"},
		{&api.Actor{Kind: api.ActorSystem}, "by system"},
	} {
		line := eventLine(client.Event{Offset: 4, Type: api.EventDestroyRequested, Payload: json.RawMessage("{}"), CreatedAt: time.Now(), Actor: c.actor}, false)
		if !strings.Contains(line, c.want) {
			t.Errorf("eventLine = %q, want it to say %q", line, c.want)
		}
	}
	if line := eventLine(client.Event{Offset: 4, Type: api.EventDestroyRequested, CreatedAt: time.Now()}, false); strings.Contains(line, "by ") {
		t.Errorf("an event without an actor says %q", line)
	}
}
