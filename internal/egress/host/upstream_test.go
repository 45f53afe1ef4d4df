package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The egress resolver forwards to the host's first nameserver off
// loopback, looking past a local stub to systemd-resolved's list, and
// refuses to start on a stub alone.
func TestEgressUpstreamIsNeverALoopbackStub(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stub := write("stub.conf", "# systemd-resolved\nnameserver 127.0.0.53\noptions edns0\n")
	real := write("real.conf", "nameserver ::1\nnameserver 192.0.2.53\nnameserver 198.51.100.53\n")
	plain := write("plain.conf", "search example\nnameserver 10.255.255.53\n")

	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{plain}, "10.255.255.53:53"},
		{[]string{stub, real}, "192.0.2.53:53"},
		{[]string{filepath.Join(dir, "missing"), real}, "192.0.2.53:53"},
	} {
		got, err := firstUpstream(c.paths)
		if err != nil || got != c.want {
			t.Fatalf("%v: %q %v, want %s", c.paths, got, err, c.want)
		}
	}
	if got, err := firstUpstream([]string{stub}); err == nil || !strings.Contains(err.Error(), "BERTH_EGRESS_DNS") {
		t.Fatalf("a stub alone: %q %v, want an error naming BERTH_EGRESS_DNS", got, err)
	}
}
