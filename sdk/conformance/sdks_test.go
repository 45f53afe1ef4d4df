package conformance

import (
	"context"
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

func sdkDir(t *testing.T, lang string) string {
	d, err := filepath.Abs(filepath.Join("..", lang))
	if err != nil {
		t.Fatal(err)
	}
	return d
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

// TestTypeScriptSDK compiles sdk/typescript with tsc and runs its tests
// (node --test): the scenarios, the seed's samples and the SDK's own tests.
func TestTypeScriptSDK(t *testing.T) {
	for _, tool := range []string{"node", "tsc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: the TypeScript SDK is built and tested with Debian's packages (%s)", tool, aptHint)
		}
	}
	dir := sdkDir(t, "typescript")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := os.MkdirTemp("", "berth-ts-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(out)
	runChild(t, ctx, dir, os.Environ(), "tsc", "-p", ".")
	p, err := newCountingProxy()
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(out, "results.json")
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
}

// TestPythonSDK installs sdk/python into a fresh virtual environment that
// sees the system's packages (as a user with Debian's python3-httpx would)
// and runs its tests with pytest there.
func TestPythonSDK(t *testing.T) {
	py := "/usr/bin/python3" // Debian's python, whose site-packages hold Debian's httpx
	check := exec.Command(py, "-c", "import httpx, websockets, hatchling, pytest")
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("the Python SDK's dependencies are missing (%s): %v\n%s", aptHint, err, out)
	}
	dir := sdkDir(t, "python")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	venv := filepath.Join(tmp, "venv")
	runChild(t, ctx, dir, os.Environ(), py, "-m", "venv", "--system-site-packages", venv)
	vpy := filepath.Join(venv, "bin", "python")
	// No index: everything comes from the system's packages; the build
	// backend (hatchling) too.
	runChild(t, ctx, tmp, os.Environ(), vpy, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", dir)
	p, err := newCountingProxy()
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(tmp, "results.json")
	defer func() {
		recordCount("python", p.count.Load())
		if err := readResults("python", results); err != nil {
			t.Error(err)
		}
	}()
	// Run from the tests directory's parent with the installed package
	// first on the path (-P keeps the source tree off sys.path, so the
	// tests exercise what pip installed).
	runChild(t, ctx, dir, childEnv(p.URL, results), vpy, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
}
