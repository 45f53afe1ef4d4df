package chaos

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// diskFault fills a sandbox's disk from inside, as code in it could, and
// checks that the sandbox still answers while it is full and takes writes
// again once the filling files are removed. The sandbox is the fault
// loop's own (the driver's model would not know what a fill and its
// removal did to its files); what it keeps is checked after the run like
// any sandbox's.
type diskFault struct {
	c    *client.Client
	name string
	box  *sandboxModel // its model, for the checks after the run

	fills, fullAnswers, writesRefused, recovered int
	codes                                        map[string]int
}

const fillScript = `avail=$(df -k /workspace | awk 'NR==2 {print $4}')
fallocate -l "${avail}k" /workspace/.fill 2>/dev/null
dd if=/dev/zero of=/workspace/.fill2 bs=4k 2>/dev/null
df -k /workspace | awk 'NR==2 {print $4}'`

// ensure creates the sandbox (once) and writes the file its checks keep.
func (f *diskFault) ensure(ctx context.Context) error {
	if f.box != nil && f.box.claimed {
		return nil
	}
	if f.box == nil {
		f.box = &sandboxModel{name: f.name, files: map[string]string{}, durable: map[string]string{}, env: map[string]string{},
			services: map[string]string{}, egress: "open"}
	}
	_, _, err := f.c.Create(ctx, client.CreateRequest{Name: f.name, InstanceType: "lite", KeepAlive: true, Start: true})
	if err != nil { // a create of the same sandbox again answers as the first did
		return err
	}
	f.box.status, f.box.claimed = "running", true
	return f.write(ctx, "/workspace/kept", 32<<10)
}

// write writes random bytes and records them in the model once acknowledged.
func (f *diskFault) write(ctx context.Context, path string, size int) error {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + f.fills)
	}
	if _, err := f.c.Sandbox(f.name).WriteFile(ctx, path, bytes.NewReader(data), client.WriteOptions{}); err != nil {
		f.box.files[path] = "" // may or may not have landed
		return err
	}
	sum := sha256.Sum256(data)
	f.box.files[path] = hex.EncodeToString(sum[:])
	return nil
}

// fill fills the disk, holds it full, removes the fill and checks the
// sandbox on both sides; it returns the invariants that did not hold.
func (f *diskFault) fill(ctx context.Context, hold time.Duration) []string {
	var v []string
	// The previous fault may have left the gateway or Temporal coming
	// back: the setup waits for them, as a client would.
	if err := retry(ctx, func() error { return f.ensure(ctx) }); err != nil {
		return []string{fmt.Sprintf("%s: no sandbox to fill: %v", f.name, err)}
	}
	sb := f.c.Sandbox(f.name)
	var res *client.RunResult
	if err := retry(ctx, func() (err error) {
		res, err = sb.Run(ctx, []string{"sh", "-c", fillScript}, client.RunOptions{})
		return err
	}); err != nil {
		return []string{fmt.Sprintf("%s: the fill did not run: %v", f.name, err)}
	}
	f.fills++
	left := strings.TrimSpace(string(res.Stdout))
	if left != "0" {
		v = append(v, fmt.Sprintf("%s: %s KiB free after the fill (%q)", f.name, left, res.Stderr))
	}
	deadline := time.Now().Add(hold)
	for first := true; first || time.Now().Before(deadline); first = false {
		// Full, it still answers: an exec runs, a read reads.
		r, err := sb.Run(ctx, []string{"echo", "alive"}, client.RunOptions{})
		if err != nil || string(r.Stdout) != "alive\n" {
			v = append(v, fmt.Sprintf("%s: with its disk full an exec answered %v (%+v)", f.name, err, r))
			break
		}
		if got, _, err := readSum(ctx, f.c, f.name, "/workspace/kept"); err != nil || got != f.box.files["/workspace/kept"] {
			v = append(v, fmt.Sprintf("%s: with its disk full /workspace/kept read %s, %v", f.name, short(got), err))
			break
		}
		f.fullAnswers++
		time.Sleep(200 * time.Millisecond)
	}
	// A write that does not fit is refused with a documented code, and
	// the file it would have replaced is unchanged.
	_, err := sb.WriteFile(ctx, "/workspace/kept", bytes.NewReader(make([]byte, 1<<20)), client.WriteOptions{})
	var e *client.Error
	switch {
	case err == nil:
		v = append(v, fmt.Sprintf("%s: a 1 MiB write to a full disk was acknowledged", f.name))
		sum := sha256.Sum256(make([]byte, 1<<20))
		f.box.files["/workspace/kept"] = hex.EncodeToString(sum[:])
	case errors.As(err, &e):
		f.writesRefused++
		f.codes[e.Code]++
		if !documented[api.Code(e.Code)] || e.Status >= 500 && e.Code != string(api.CodeNoSpace) {
			v = append(v, fmt.Sprintf("%s: a write to a full disk answered %d %s %s", f.name, e.Status, e.Code, e.Message))
		}
	default:
		v = append(v, fmt.Sprintf("%s: a write to a full disk got no answer: %v", f.name, err))
	}
	if got, _, err := readSum(ctx, f.c, f.name, "/workspace/kept"); err != nil || got != f.box.files["/workspace/kept"] {
		v = append(v, fmt.Sprintf("%s: after a refused write /workspace/kept read %s, %v", f.name, short(got), err))
	}
	// Removing the fill frees the disk: writes land again.
	if err := retry(ctx, func() error {
		_, err := sb.Run(ctx, []string{"rm", "-f", "/workspace/.fill", "/workspace/.fill2"}, client.RunOptions{})
		return err
	}); err != nil {
		return append(v, fmt.Sprintf("%s: the fill was not removed: %v", f.name, err))
	}
	if err := retry(ctx, func() error { return f.write(ctx, "/workspace/after", 256<<10) }); err != nil {
		v = append(v, fmt.Sprintf("%s: no write after the fill was removed: %v", f.name, err))
	} else {
		f.recovered++
	}
	return v
}
