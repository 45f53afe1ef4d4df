package gateway

import "testing"

// The bytes a log follow lost are read from the supervisor's truncated
// events; output that merely looks like one is base64 in its data field,
// and a truncated event without a count adds nothing.
func TestLostBytesOfTruncatedEvents(t *testing.T) {
	p := []byte("id: c1\ndata: {\"type\":\"truncated\",\"cursor\":\"c1\",\"timestamp\":\"2026-12-06T10:00:00Z\",\"lost\":1200}\n\n" +
		"id: c2\ndata: {\"type\":\"stdout\",\"cursor\":\"c2\",\"timestamp\":\"2026-12-06T10:00:00Z\",\"data\":\"Imxvc3QiOjk5\"}\n\n" +
		"id: c3\ndata: {\"type\":\"truncated\",\"cursor\":\"c3\",\"timestamp\":\"2026-12-06T10:00:00Z\"}\n\n" +
		"id: c4\ndata: {\"type\":\"truncated\",\"cursor\":\"c4\",\"timestamp\":\"2026-12-06T10:00:00Z\",\"lost\":34}\n\n")
	if got := lostBytes(p); got != 1234 {
		t.Fatalf("lost %d bytes, want 1234", got)
	}
}
