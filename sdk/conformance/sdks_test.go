package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The TypeScript and Python SDKs' own test suites, which include their
// runners of the scenarios, run as child processes against this stack. Their
// toolchains come from Debian's packages (tsc from node-typescript; httpx,
// websockets, hatchling, pytest): when one is missing the test fails and
// says what to install, since a skipped client would leave its column of the
// conformance table silently empty.

const aptHint = "apt-get install -y node-typescript python3-httpx python3-websockets python3-hatchling python3-pytest"

// A prep is a client's build, started by TestMain while the stack starts
// (it needs no stack): tsc for TypeScript, a venv with the package
// installed for Python.
type prep struct {
	done chan struct{}
	log  strings.Builder
	err  error
	dir  string // the Python venv's directory
}

var tsPrep, pyPrep *prep

func startPreps() {
	tsPrep = runPrep(prepTypeScript)
	pyPrep = runPrep(prepPython)
}

func runPrep(f func(p *prep) error) *prep {
	p := &prep{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = f(p)
	}()
	return p
}

// wait returns once the build is done, failing t with its log if it failed.
func (p *prep) wait(t *testing.T) {
	t.Helper()
	<-p.done
	if p.err != nil {
		t.Fatalf("%v\n%s", p.err, p.log.String())
	}
}

func (p *prep) run(dir string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	fmt.Fprintf(&p.log, "%s %s:\n%s\n", name, strings.Join(args, " "), out)
	if err != nil {
		return fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return nil
}

func sdkDir(lang string) string {
	d, err := filepath.Abs(filepath.Join("..", lang))
	if err != nil {
		panic(err)
	}
	return d
}

func prepTypeScript(p *prep) error {
	for _, tool := range []string{"node", "tsc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is missing: the TypeScript SDK is built and tested with Debian's packages (%s)", tool, aptHint)
		}
	}
	return p.run(sdkDir("typescript"), "tsc", "-p", ".")
}

// pythonBin is Debian's python, whose site-packages hold Debian's httpx
// (another python3 may come first on PATH).
const pythonBin = "/usr/bin/python3"

// prepPython installs sdk/python into a fresh virtual environment that
// sees the system's packages, as a user with Debian's python3-httpx would.
func prepPython(p *prep) error {
	if err := p.run("", pythonBin, "-c", "import httpx, websockets, hatchling, pytest"); err != nil {
		return fmt.Errorf("the Python SDK's dependencies are missing (%s): %v", aptHint, err)
	}
	tmp, err := os.MkdirTemp("", "berth-py-")
	if err != nil {
		return err
	}
	p.dir = tmp
	venv := filepath.Join(tmp, "venv")
	if err := p.run(tmp, pythonBin, "-m", "venv", "--system-site-packages", venv); err != nil {
		return err
	}
	// No index: everything comes from the system's packages, the build
	// backend (hatchling) too.
	return p.run(tmp, filepath.Join(venv, "bin", "python"), "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", sdkDir("python"))
}

// childEnv is the environment of a client's test run: the stack behind a
// counting proxy, the control server, and where to write the results.
func childEnv(url, results string) []string {
	return append(os.Environ(),
		"BERTH_URL="+url, "BERTH_TOKEN="+stack.Token, "BERTH_CONTROL="+control,
		"BERTH_CONFORMANCE_RESULTS="+results)
}

func runChild(t *testing.T, ctx context.Context, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s:\n%s", name, strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
}

// TestTypeScriptSDK runs the TypeScript SDK's tests (node --test): the
// scenarios, the seed's samples and the SDK's own tests.
func TestTypeScriptSDK(t *testing.T) {
	tsPrep.wait(t)
	dir := sdkDir("typescript")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, err := newCountingProxy()
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "results.json")
	defer func() {
		recordCount("typescript", p.count.Load())
		if err := readResults("typescript", results); err != nil {
			t.Error(err)
		}
	}()
	// One file at a time: node --test runs files in parallel, and the
	// scenarios restart the gateway under the other files' requests.
	files, err := filepath.Glob(filepath.Join(dir, "test", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tests in %s/test: %v", dir, err)
	}
	for _, f := range files {
		runChild(t, ctx, dir, childEnv(p.URL, results), "node", "--test", f)
	}
	// Node 20 has no global WebSocket, so terminals ran on the SDK's own
	// client above; its flag gives it the runtime's, which browsers and
	// Node >= 22 have: the terminals run on that too.
	if exec.Command("node", "--experimental-websocket", "-e", "if (typeof WebSocket !== 'function') process.exit(1)").Run() == nil {
		runChild(t, ctx, dir, childEnv(p.URL, results), "node", "--experimental-websocket", "--test", filepath.Join(dir, "test", "terminals.test.mjs"))
	}
}

// TestPythonSDK runs the Python SDK's tests with pytest in the venv
// prepared at start.
func TestPythonSDK(t *testing.T) {
	pyPrep.wait(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p, err := newCountingProxy()
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "results.json")
	defer func() {
		recordCount("python", p.count.Load())
		if err := readResults("python", results); err != nil {
			t.Error(err)
		}
	}()
	// -P keeps the source tree off sys.path, so that the tests exercise
	// what pip installed.
	vpy := filepath.Join(pyPrep.dir, "venv", "bin", "python")
	runChild(t, ctx, sdkDir("python"), childEnv(p.URL, results), vpy, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
}
