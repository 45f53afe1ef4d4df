package main

import (
	"strings"
	"testing"

	"github.com/berthdev/berth/client"
)

func TestWatchLineEscapesPaths(t *testing.T) {
	line := watchLine(client.FileEvent{ID: 7, Type: "rename", From: "/workspace/a\x1b]0;pwned\x07", Path: "/workspace/b\nc", IsDir: true})
	if strings.ContainsAny(line, "\x1b\x07\n") {
		t.Fatalf("control bytes reached the terminal: %q", line)
	}
	if !strings.HasPrefix(line, "7  rename") || !strings.Contains(line, " -> /workspace/b") || !strings.HasSuffix(line, "/") {
		t.Fatalf("line %q", line)
	}
}
