// Package drivers runs the image-shape suite on every Docker storage
// driver Berth supports: one stack, and one netns host (stacktest
// AddHostWith: its own network namespace, dockerd and worker) per driver,
// each daemon's data root on a loop-mounted file system of its own:
//
//	ext4    overlay2 on ext4 (the writable layer moved onto the sandbox disk)
//	xfs     overlay2 on xfs mounted with pquota (Docker's size limit)
//	xfsnoq  overlay2 on xfs without pquota (Docker refuses the size limit:
//	        the layer is moved as on ext4)
//	fuse    fuse-overlayfs
//	vfs     vfs (nothing bounds the root file system)
//
// The default run (`go test ./...`, CI) brings up ext4 and xfs (xfsnoq
// instead when the kernel has no XFS quota) and runs a few shapes on each; BERTH_TEST_DRIVERS=full (`task test:drivers`) every
// host and every shape. It needs root, nsenter, ip, dockerd and Debian's
// static busybox (the shapes' base); without them it skips and says so
// (BERTH_TEST_DRIVERS set makes that a failure). A driver this machine
// cannot run (no xfs, no fuse-overlayfs) is skipped alone, saying what is
// missing.
package drivers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/imagetest"
	"github.com/berthdev/berth/internal/stacktest"
)

// driverHost is one host of the matrix.
type driverHost struct {
	name   string // host name, also the subtest's
	driver stacktest.HostDriver
	full   bool // only with BERTH_TEST_DRIVERS=full
	// insteadOf: in the default run, this host stands in for that one
	// when this machine cannot run it.
	insteadOf string
}

var matrix = []driverHost{
	{name: "ext4", driver: stacktest.HostDriver{Driver: "overlay2", FS: "ext4"}},
	{name: "xfs", driver: stacktest.HostDriver{Driver: "overlay2", FS: "xfs"}},
	{name: "xfsnoq", driver: stacktest.HostDriver{Driver: "overlay2", FS: "xfs-noquota"}, full: true, insteadOf: "xfs"},
	{name: "fuse", driver: stacktest.HostDriver{Driver: "fuse-overlayfs"}, full: true},
	{name: "vfs", driver: stacktest.HostDriver{Driver: "vfs"}, full: true},
}

// focusedShapes run in the default run; the full run runs imagetest.All.
var focusedShapes = []string{imagetest.NoWorkspace, imagetest.Whiteouts, imagetest.UserNumeric}

var (
	stack      *stacktest.Stack
	netHosts   = map[string]*stacktest.Host{} // by name; a driver this machine lacks is absent
	hostSkip   = map[string]string{}          // why a host of the matrix is absent
	skipReason string
)

func full() bool { return os.Getenv("BERTH_TEST_DRIVERS") == "full" }

func TestMain(m *testing.M) {
	if missing := missingTools(); len(missing) > 0 {
		skipReason = "the storage-driver tests need: " + strings.Join(missing, "; ")
		if os.Getenv("BERTH_TEST_DRIVERS") != "" {
			fmt.Fprintln(os.Stderr, "FAIL:", skipReason)
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the storage-driver stack:", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	if err := imagetest.Build(ctx, ""); err != nil {
		return 1, err
	}
	fmt.Printf("image shapes on the machine's daemon in %s\n", time.Since(start).Round(time.Millisecond))
	typesEnv, typesFile, err := writeInstanceTypes()
	if err != nil {
		return 1, err
	}
	defer os.Remove(typesFile)
	// The guard is off: the stack's own worker shares this namespace's
	// nftables with the workers of other test packages run beside this
	// one; tests/ covers the guard.
	s, err := stacktest.Start(ctx, stacktest.Options{Hosts: true, Env: []string{typesEnv, "BERTH_NETGUARD=off"}})
	if err != nil {
		return 1, err
	}
	stack = s
	defer s.Close()
	for _, dh := range matrix {
		_, standsIn := hostSkip[dh.insteadOf]
		if dh.full && !full() && !standsIn {
			hostSkip[dh.name] = "run with BERTH_TEST_DRIVERS=full (task test:drivers)"
			continue
		}
		if missing := dh.driver.Missing(); len(missing) > 0 {
			// Not a failure: a kernel without XFS quota is common, and
			// what an operator may run.
			hostSkip[dh.name] = dh.driver.String() + " needs: " + strings.Join(missing, ", ")
			fmt.Printf("host %s skipped: %s\n", dh.name, hostSkip[dh.name])
			continue
		}
		h, err := s.AddHostWith(ctx, dh.name, dh.driver,
			// Sandbox disks on, as in production: the writable layer's
			// move (or quota) is what differs between drivers. No test
			// here kills a host, which would leave its disks mounted.
			"BERTH_DISK_LIMITS=on",
			// The worker's report of how it bounds root file systems is
			// an info line.
			"BERTH_LOG_LEVEL=info")
		if err != nil {
			return 1, fmt.Errorf("host %s (%s): %w", dh.name, dh.driver, err)
		}
		up := h.Up
		t0 := time.Now()
		if err := h.LoadImages(ctx, shapeTags()...); err != nil {
			return 1, err
		}
		netHosts[dh.name] = h
		fmt.Printf("host %s (%s) up in %s, image shapes loaded in %s; its worker: %s\n", dh.name, dh.driver,
			up.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), rootReport(h))
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
		for _, h := range s.Hosts() {
			fmt.Fprintf(os.Stderr, "--- host %s worker log ---\n%s\n", h.Name, h.Logs("worker"))
		}
	}
	return code, nil
}

func missingTools() []string {
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces, a dockerd per host, loop mounts)")
	}
	for _, tool := range []string{"ip", "nsenter", "dockerd", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if _, err := os.Stat("/bin/busybox"); err != nil {
		missing = append(missing, "/bin/busybox (Debian's busybox-static, the image shapes' base)")
	}
	return missing
}

// rootReport is the worker's start-up line about root file systems, its
// message and root field only.
func rootReport(h *stacktest.Host) string {
	var out []string
	for _, l := range strings.Split(h.StorageReport(), "\n") {
		var e struct {
			Msg  string `json:"msg"`
			Root string `json:"root"`
		}
		switch {
		case l == "":
		case json.Unmarshal([]byte(l), &e) == nil && e.Msg != "":
			if e.Root != "" {
				e.Msg += ": " + e.Root
			}
			out = append(out, e.Msg)
		default:
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return "(nothing said about root file systems)"
	}
	return strings.Join(out, "; ")
}

// shapeTags are the images of the shapes this run tries. They are loaded
// (docker save | load), not built on each host: a build there would give
// each host its own image ids, and a create fixes the id of the image it
// resolved (these images have no registry digest).
func shapeTags() []string {
	var tags []string
	for _, s := range shapes() {
		tags = append(tags, imagetest.Tag(s))
	}
	return tags
}

// smallDisk is an instance type whose disk a test can fill quickly.
const (
	smallDisk    = "drivers-small-disk"
	smallDiskMiB = 64
)

// writeInstanceTypes writes the tests' instance types to a file and
// returns the environment entry that names it, and the file.
func writeInstanceTypes() (env, file string, err error) {
	b, err := json.Marshal([]config.InstanceType{{Name: smallDisk, VCPU: 0.25, MemoryMiB: 256, Pids: 256, DiskMiB: smallDiskMiB}})
	if err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp("", "berth-instance-types-*.json")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return "", "", err
	}
	return "BERTH_INSTANCE_TYPES=" + f.Name(), f.Name(), nil
}

// need skips a test when the stack could not be set up here.
func need(t testing.TB) {
	t.Helper()
	if stack == nil {
		t.Skip(skipReason)
	}
}

// shapes are the shapes this run tries on each host.
func shapes() []string {
	if full() {
		return imagetest.All
	}
	return focusedShapes
}
