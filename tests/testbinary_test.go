package tests

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/berthdev/berth/client"
)

// testBinary is a command of this directory (./previewapp, ./forkloop)
// built once per run as a static binary, to be copied into sandboxes
// through the files API.
type testBinary struct {
	pkg  string
	once sync.Once
	bin  []byte
	err  error
}

func (b *testBinary) build() ([]byte, error) {
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "berth-testbin-")
		if err != nil {
			b.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, filepath.Base(b.pkg))
		cmd := exec.Command("go", "build", "-o", out, b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if o, err := cmd.CombinedOutput(); err != nil {
			b.err = &buildError{pkg: b.pkg, err: err, out: string(o)}
			return
		}
		b.bin, b.err = os.ReadFile(out)
	})
	return b.bin, b.err
}

// install writes the binary to path in the sandbox, executable.
func (b *testBinary) install(t testing.TB, ctx context.Context, sb *client.Sandbox, path string) {
	t.Helper()
	bin, err := b.build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.WriteFile(ctx, path, bytes.NewReader(bin), client.WriteOptions{Mode: 0o755}); err != nil {
		t.Fatalf("install %s: %v", b.pkg, err)
	}
}

type buildError struct {
	pkg string
	err error
	out string
}

func (e *buildError) Error() string { return "go build " + e.pkg + ": " + e.err.Error() + "\n" + e.out }
