package tests

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/internal/stacktest"
)

func TestCLIShell(t *testing.T) {
	t.Parallel()
	n := name(t, "clishell")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	// Piped stdin is typed into the terminal; berth exits with the shell's
	// code. (The terminal echoes the input: hel''lo is only "hello" once run.)
	r := berthIn(t, strings.NewReader("echo hel''lo; exit 4\n"), "shell", n, "--", "sh")
	require.Equal(t, 4, r.code, "stdout: %q\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "hello")
	// The default login shell, --cwd and --env; at the end of the input,
	// Ctrl-D ends the shell (exit 0).
	r = berthIn(t, strings.NewReader("echo $PWD-$MODE\n"), "shell", n, "--cwd", "/tmp", "--env", "MODE=x")
	require.Equal(t, 0, r.code, "stdout: %q\nstderr: %s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "/tmp-x")

	r = berth(t, "shell", n, "sh")
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "--")
	r = berth(t, "shell", name(t, "nosuch"))
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "SANDBOX_NOT_FOUND")
}

// TestCLIShellReconnect: the gateway restarts under an open `berth shell`;
// it reconnects with its cursor (no output lost or repeated), sends what
// was typed meanwhile, and exits with the shell's code.
func TestCLIShellReconnect(t *testing.T) {
	n := name(t, "clishellre")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	cmd := berthCmd(t, "shell", n, "--", "sh")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	_, err = io.WriteString(stdin, "echo one''1\n")
	require.NoError(t, err)
	stacktest.WaitFor(t, 30*time.Second, "the first output", func() (bool, string) {
		return strings.Contains(stdout.String(), "one1"), stdout.String()
	})

	stack.StopGateway(syscall.SIGKILL)
	_, err = io.WriteString(stdin, "echo two''2; exit 5\n") // typed while it is away
	require.NoError(t, err, "stdout: %q\nstderr: %s", stdout.String(), stderr.String())
	time.Sleep(time.Second)
	require.NoError(t, stack.StartGateway())

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "exit: %v\nstdout: %q\nstderr: %s", err, stdout.String(), stderr.String())
		require.Equal(t, 5, ee.ExitCode(), "stdout: %q\nstderr: %s", stdout.String(), stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("berth shell did not end after the reconnect\nstdout: %q\nstderr: %s", stdout.String(), stderr.String())
	}
	require.Contains(t, stdout.String(), "two2")
	require.Equal(t, 1, strings.Count(stdout.String(), "one1"), "nothing repeated: %q", stdout.String())
	require.Contains(t, stderr.String(), "reconnect")
}

// openPTY opens a pseudo-terminal pair for driving `berth shell` as a
// person would.
func openPTY(t *testing.T, rows, cols uint16) (master, slave *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	require.NoError(t, err)
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	sfd, err := unix.Open(fmt.Sprintf("/dev/pts/%d", n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	require.NoError(t, unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}))
	master, slave = os.NewFile(uintptr(fd), "ptmx"), os.NewFile(uintptr(sfd), "pts")
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}

func canonical(t *testing.T, f *os.File) bool {
	tio, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	require.NoError(t, err)
	return tio.Lflag&unix.ICANON != 0
}

// TestCLIShellTTY drives `berth shell` from a local terminal: raw mode
// while it runs, the local window size at the start and on SIGWINCH, the
// exit code, and the tty restored afterwards (also when berth is killed
// with SIGTERM, which hangs the remote terminal up).
func TestCLIShellTTY(t *testing.T) {
	t.Parallel()
	n := name(t, "clishelltty")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	start := func() (*exec.Cmd, *os.File, *os.File, *syncBuffer, chan error) {
		master, slave := openPTY(t, 30, 100)
		require.True(t, canonical(t, slave))
		cmd := berthCmd(t, "shell", n, "--", "sh")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		require.NoError(t, cmd.Start())
		out := &syncBuffer{}
		go func() { _, _ = io.Copy(out, master) }()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		return cmd, master, slave, out, done
	}
	type2 := func(master *os.File, s string) {
		_, err := master.Write([]byte(s))
		require.NoError(t, err)
	}
	waitOut := func(out *syncBuffer, want string) {
		stacktest.WaitFor(t, 30*time.Second, want, func() (bool, string) { return strings.Contains(out.String(), want), out.String() })
	}
	exitCode := func(done chan error, out *syncBuffer) int {
		select {
		case err := <-done:
			if err == nil {
				return 0
			}
			ee, ok := err.(*exec.ExitError)
			require.True(t, ok, "%v", err)
			return ee.ExitCode()
		case <-time.After(30 * time.Second):
			t.Fatalf("berth shell did not exit; output: %q", out.String())
		}
		return -1
	}

	cmd, master, slave, out, done := start()
	defer cmd.Process.Kill()
	type2(master, "stty size\r")
	waitOut(out, "30 100")
	require.False(t, canonical(t, slave), "raw mode while the shell runs")
	require.NoError(t, unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})) // SIGWINCH
	time.Sleep(300 * time.Millisecond)
	type2(master, "stty size\r")
	waitOut(out, "40 120")
	type2(master, "exit 7\r")
	require.Equal(t, 7, exitCode(done, out), out.String())
	require.True(t, canonical(t, slave), "the tty is restored")

	cmd, master, slave, out, done = start()
	defer cmd.Process.Kill()
	type2(master, "echo rea''dy\r")
	waitOut(out, "ready")
	require.False(t, canonical(t, slave))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 128+int(syscall.SIGTERM), exitCode(done, out))
	require.True(t, canonical(t, slave), "the tty is restored after SIGTERM")
	// Nobody is left to read it: the remote terminal was hung up.
	terms, err := stack.Client().Sandbox(n).ListTerminals(testCtx(t, 30*time.Second))
	require.NoError(t, err)
	require.Len(t, terms, 2)
	for _, tm := range terms {
		require.Equal(t, "exited", tm.State, tm.ID)
	}
}
