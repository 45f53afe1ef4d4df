package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

// What the host refuses shows on the sandbox's own event stream, summed:
// a loop of refused requests, a refused lookup, a raw address and a
// placeholder headed to a host its secret is not bound to become a few
// egress-refused events that match their JSON Schema, name the hosts and
// the secret, and hold no secret value.
func TestEgressRefusalsOnTheEventStream(t *testing.T) {
	t.Parallel()
	holdLab(t)
	ctx := testCtx(t, 6*time.Minute)
	in := newInternet(t)
	s := egressStack(t, ctx, in)
	const value = "egress-refusal-VALUE-9a1b2c3d"
	_, _, err := s.Client().SetSecret(ctx, "bound-token", value, []string{"api.example.test"})
	require.NoError(t, err)
	n := "eg-refused-" + s.HostID
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true,
		"env":    map[string]string{"TOKEN": `getSecret("bound-token")`},
		"egress": map[string]any{"mode": "allowlist", "domains": []string{"api.example.test", "other.example.test"}}})
	t.Cleanup(func() { s.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })
	sb := s.Client().Sandbox(n)
	t.Cleanup(func() {
		if t.Failed() {
			var lines []string
			for _, l := range strings.Split(fullLog(t, s.Dir, "worker"), "\n") {
				if strings.Contains(l, "egress") {
					lines = append(lines, l)
				}
			}
			if len(lines) > 60 {
				lines = lines[len(lines)-60:]
			}
			t.Logf("worker's egress log:\n%s", strings.Join(lines, "\n"))
		}
	})

	script := `for i in $(seq 30); do curl -s -o /dev/null --max-time 3 http://denied.example.test/loop$i; done;` +
		curlCode("unbound", `-H "Authorization: Bearer $TOKEN" https://other.example.test/leak`) +
		curlCode("raw-ip", "http://"+in.ip+"/raw") +
		`getent hosts lookup.denied.test >/dev/null; echo done`
	out := sandboxSh(t, ctx, sb, script)
	require.Contains(t, out, "unbound 403")

	var events []schemas.EgressRefused
	var raw []string
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		events, raw = nil, nil
		count := 0
		for _, e := range s.Events(t, n, 0) {
			if e.Type != api.EventEgressRefused {
				continue
			}
			require.NoError(t, schemas.Validate(e), "the event matches its JSON Schema")
			var r schemas.EgressRefused
			require.NoError(t, json.Unmarshal(e.Payload, &r))
			events = append(events, r)
			raw = append(raw, string(e.Payload))
			count += r.Count
		}
		if count >= 33 && strings.Contains(strings.Join(raw, "\n"), "lookup.denied.test") {
			break
		}
		time.Sleep(time.Second)
	}
	t.Logf("egress-refused events:\n%s", strings.Join(raw, "\n"))
	all := strings.Join(raw, "\n")
	require.NotEmpty(t, events, "no egress-refused event")
	require.LessOrEqual(t, len(events), 4, "refusals are summed, not one event each")
	for _, want := range []string{"denied.example.test", "lookup.denied.test", `"secret":"bound-token"`, "other.example.test"} {
		require.Contains(t, all, want)
	}
	require.NotContains(t, all, value, "a secret's value on the stream")
	require.NotContains(t, all, "Bearer", "a request header on the stream")
	total := 0
	for _, r := range events {
		total += r.Count
	}
	require.GreaterOrEqual(t, total, 33, "30 refused requests, a placeholder to an unbound host, a raw address, a lookup")
}
