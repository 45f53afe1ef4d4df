// Package supervisortest builds and runs the real berth-supervisor binary
// as a local child process, for tests of the supervisor itself and of
// anything that talks to it (client, gateway).
package supervisortest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Build compiles cmd/berth-supervisor (static, CGO_ENABLED=0) into dir and
// returns the binary's path. Call it once from TestMain.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "berth-supervisor")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/berthdev/berth/cmd/berth-supervisor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build berth-supervisor: %v\n%s", err, out)
	}
	return bin, nil
}

// Options tune one instance. Zero values give a fresh random boot id, a
// temporary default cwd and the supervisor's defaults.
type Options struct {
	BootID string
	Token  string
	// DefaultCwd replaces /workspace (which hosts usually lack).
	DefaultCwd string
	// Env is appended to the supervisor's environment (the image env layer
	// of its processes), e.g. "BERTH_MAX_EXITED=3" or "IMAGE_VAR=x".
	Env []string
}

// Instance is a running supervisor.
type Instance struct {
	URL    string // http://127.0.0.1:<port>
	Token  string
	BootID string
	PID    int
	// TokenFile is where the token was handed over; the supervisor
	// removes it at start.
	TokenFile string
	cmd       *exec.Cmd
	done      chan struct{}
}

// Start runs bin on a random loopback port and stops it (SIGTERM, which
// also stops its processes) when the test ends.
func Start(tb testing.TB, bin string, o Options) *Instance {
	tb.Helper()
	if o.Token == "" {
		o.Token = "test-token-" + fmt.Sprint(time.Now().UnixNano())
	}
	if o.BootID == "" {
		o.BootID = fmt.Sprintf("boot-%d", time.Now().UnixNano())
	}
	if o.DefaultCwd == "" {
		o.DefaultCwd = tb.TempDir()
	}
	// The supervisor takes its token from a file it removes, as in a sandbox.
	tokenFile := filepath.Join(tb.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(o.Token), 0o400); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"BERTH_SUPERVISOR_TOKEN_FILE="+tokenFile,
		"BERTH_BOOT_ID="+o.BootID,
		"BERTH_SUPERVISOR_LISTEN=127.0.0.1:0",
		"BERTH_DEFAULT_CWD="+o.DefaultCwd,
	)
	cmd.Env = append(cmd.Env, o.Env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	inst := &Instance{Token: o.Token, BootID: o.BootID, PID: cmd.Process.Pid, TokenFile: tokenFile, cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "berth-supervisor listening on "); ok {
				addr <- strings.Fields(rest)[0]
			} else if testing.Verbose() {
				fmt.Fprintln(os.Stderr, "supervisor:", line)
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() { cmd.Wait(); close(inst.done) }()
	select {
	case a := <-addr:
		inst.URL = "http://" + a
	case <-inst.done:
		tb.Fatalf("berth-supervisor exited before listening: %v", cmd.ProcessState)
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		tb.Fatal("berth-supervisor did not start listening within 10s")
	}
	tb.Cleanup(func() { inst.Stop() })
	return inst
}

// Stop sends SIGTERM and waits for the supervisor to exit (it stops its
// processes first). Safe to call more than once.
func (i *Instance) Stop() {
	select {
	case <-i.done:
		return
	default:
	}
	i.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-i.done:
	case <-time.After(10 * time.Second):
		i.cmd.Process.Kill()
		<-i.done
	}
}

// Done is closed when the supervisor process has exited.
func (i *Instance) Done() <-chan struct{} { return i.done }
