package s3test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Version is the versitygw release the tests build; v1.8.0 builds with
// Go 1.26.
const Version = "v1.8.0"

// EnvBinary points at a prebuilt versitygw binary.
const EnvBinary = "BERTH_VERSITYGW"

// Where a shared tool bootstrap on dev machines drops its build and log.
const (
	toolsBinary = "/tmp/tools/bin/versitygw"
	toolsLog    = "/tmp/tools/versity.log"
)

// findBinary returns a versitygw binary: $BERTH_VERSITYGW, then PATH, then
// the shared /tmp/tools build (waiting for it if it is still compiling),
// else it builds Version into the user cache dir. It fails the test with
// the reason if none of these work.
func findBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvBinary); p != "" {
		if !isExecutable(p) {
			t.Fatalf("s3test: %s=%s is not an executable file", EnvBinary, p)
		}
		return p
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	if p, ok := waitForToolsBuild(t); ok {
		return p
	}
	return buildIntoCache(t)
}

// waitForToolsBuild waits (up to 15 minutes) for a /tmp/tools build that
// its log shows as still running, instead of starting a second compile on
// a shared machine.
func waitForToolsBuild(t testing.TB) (string, bool) {
	deadline := time.Now().Add(15 * time.Minute)
	for {
		if isExecutable(toolsBinary) {
			return toolsBinary, true
		}
		state := toolsLogState()
		if state != "running" || time.Now().After(deadline) {
			return "", false
		}
		t.Logf("s3test: waiting for the versitygw build in progress (%s)", toolsLog)
		time.Sleep(5 * time.Second)
	}
}

// toolsLogState is "running" while the bootstrap log exists without its
// final "done-versity <rc>" line, "done" after it, "" without a log.
func toolsLogState() string {
	f, err := os.Open(toolsLog)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "done-versity") {
			return "done"
		}
	}
	return "running"
}

// buildIntoCache runs `go install versitygw@Version` into
// $XDG_CACHE_HOME/berth/versitygw-<Version>, serialised with a file lock
// so parallel test binaries build it once.
func buildIntoCache(t testing.TB) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "berth", "versitygw-"+Version)
	bin := filepath.Join(dir, "versitygw")
	if isExecutable(bin) {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("s3test: create %s: %v", dir, err)
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		t.Fatalf("s3test: lock %s: %v", dir, err)
	}
	defer unlock()
	if isExecutable(bin) { // another process built it while we waited
		return bin
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("s3test: versitygw not found (%s, PATH, %s) and no go tool to build it: %v", EnvBinary, toolsBinary, err)
	}
	t.Logf("s3test: building versitygw %s into %s (takes a few minutes once)", Version, dir)
	cmd := exec.Command(gobin, "install", "github.com/versity/versitygw/cmd/versitygw@"+Version)
	cmd.Dir = dir // outside any module, so our go.mod does not interfere
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-buildvcs=false", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil || !isExecutable(bin) {
		t.Fatalf("s3test: cannot build versitygw %s (set %s to a prebuilt binary): %v\n%s", Version, EnvBinary, err, out)
	}
	return bin
}

func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock: %w", err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
