package chaos

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// Operation kinds the driver runs.
const (
	opCreate   = "create"
	opCreateWP = "create-warm"
	opStart    = "start"
	opExec     = "exec"
	opBgLogs   = "background+logs"
	opWrite    = "write"
	opSleep    = "sleep"
	opSnapshot = "snapshot"
	opFork     = "fork"
	opKill     = "kill"
	opDestroy  = "destroy"
	opEnv      = "env"
	opEgress   = "egress"
	opService  = "service"
	opIdle     = "create-idle" // a create with a short sleepAfter: it sleeps by itself when idle
)

// weights of the operations on an existing sandbox.
var opWeights = []struct {
	op string
	w  int
}{{opStart, 6}, {opExec, 10}, {opBgLogs, 3}, {opWrite, 12}, {opSleep, 5}, {opSnapshot, 3},
	{opFork, 1}, {opKill, 2}, {opDestroy, 1}, {opEnv, 3}, {opEgress, 2}, {opService, 2}}

// idleSleepAfter is the sleepAfter of the sandboxes that sleep by
// themselves: short enough that they do, several times, in a bounded run.
const idleSleepAfter = 10 * time.Second

// sandboxModel is what the acknowledged operations imply about a
// sandbox. An operation that got no answer (or an error) may or may not
// have taken effect: what it touched becomes unknown until an acknowledged
// operation fixes it again.
type sandboxModel struct {
	name string
	// status is the status the last acknowledged lifecycle operation
	// implies; "" when an unacknowledged one may have changed it.
	status string
	// files maps a path to the sha256 of its last acknowledged content;
	// "" when an unacknowledged write may have changed it.
	files map[string]string
	// durable is files as of the last acknowledged sleep or snapshot:
	// what a backup holds (what a fork of it must have).
	durable map[string]string
	env     map[string]string
	// egress is the policy last acknowledged ("mode domain"); "" unknown.
	egress string
	// services maps a declared service's name to "declared" or
	// "removed" as last acknowledged; "" when an unacknowledged
	// declaration or removal may have changed it.
	services map[string]string
	// idle: created with a short sleepAfter and no keepAlive, it may be
	// stopped where the model says running.
	idle bool
	// claimed: an acknowledged create (or any acknowledged operation)
	// says the sandbox exists; a create that got no answer may not have
	// claimed the name.
	claimed bool
}

// driver runs seeded random operations through the public Go client.
type driver struct {
	c      *client.Client
	rnd    *rand.Rand
	prefix string
	log    func(format string, args ...any)

	mu       sync.Mutex
	boxes    []*sandboxModel
	ops      map[string]int
	acked    map[string]int
	codes    map[string]int // error codes answered, per code
	undoc    []string       // answered errors whose code is not documented
	logGaps  []string       // background log streams that skipped or repeated
	noAnswer []string       // samples of errors that were no answer
	seq      int
	bg       sync.WaitGroup
}

func (d *driver) count(op string, err error) {
	d.mu.Lock()
	d.ops[op]++
	if err == nil {
		d.acked[op]++
		d.mu.Unlock()
		return
	}
	var e *client.Error
	backOff := true
	if errors.As(err, &e) {
		d.codes[e.Code]++
		if !documented[api.Code(e.Code)] {
			d.undoc = append(d.undoc, fmt.Sprintf("%s: %d %s %s", op, e.Status, e.Code, e.Message))
		}
		backOff = e.Retryable || e.Status >= 500
	} else {
		d.codes["(no answer)"]++
		if msg := err.Error(); len(d.noAnswer) < 8 && !slices.Contains(d.noAnswer, msg) {
			d.noAnswer = append(d.noAnswer, msg)
		}
	}
	d.mu.Unlock()
	if backOff {
		// As a client would: a gateway that is down is not asked again
		// and again within the same millisecond.
		time.Sleep(250 * time.Millisecond)
	}
}

var documented = func() map[api.Code]bool {
	m := map[api.Code]bool{}
	for _, c := range api.Codes() {
		m[c] = true
	}
	return m
}()

func (d *driver) newName() string {
	d.seq++
	return fmt.Sprintf("%s-%d", d.prefix, d.seq)
}

// step runs one operation.
func (d *driver) step(ctx context.Context) {
	live := d.live()
	if len(live) < 3 || d.rnd.IntN(30) == 0 {
		kind := d.rnd.IntN(4) // warm, basic, basic, idle
		d.create(ctx, kind == 0, kind == 3)
		return
	}
	b := live[d.rnd.IntN(len(live))]
	total := 0
	for _, w := range opWeights {
		total += w.w
	}
	pick := d.rnd.IntN(total)
	op := ""
	for _, w := range opWeights {
		if pick < w.w {
			op = w.op
			break
		}
		pick -= w.w
	}
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	switch op {
	case opStart:
		info, err := d.c.Start(ctx, b.name)
		d.count(op, err)
		d.setStatus(b, err, answered(info, "running"))
	case opExec:
		d.exec(ctx, b)
	case opBgLogs:
		d.background(ctx, b)
	case opWrite:
		d.write(ctx, b)
	case opSleep:
		// A sandbox never started stays created: the answer says.
		info, err := d.c.Sleep(ctx, b.name)
		d.count(op, err)
		d.setStatus(b, err, answered(info, "stopped"))
		if err == nil {
			d.markDurable(b)
		}
	case opSnapshot:
		_, err := d.c.CreateBackup(ctx, b.name)
		d.count(op, err)
		if err == nil {
			d.markDurable(b)
			d.setStatus(b, nil, "running") // a snapshot needs (and keeps) a running sandbox
		}
	case opFork:
		d.fork(ctx, b)
	case opKill:
		// Kill ends the workflow run and continues as new: the container
		// and its processes are untouched.
		_, err := d.c.Kill(ctx, b.name)
		d.count(op, err)
	case opDestroy:
		info, err := d.c.Destroy(ctx, b.name)
		d.count(op, err)
		d.setStatus(b, err, answered(info, "destroyed"))
	case opEgress:
		p := client.EgressPolicy{Mode: []string{"open", "allowlist", "none"}[d.rnd.IntN(3)]}
		if p.Mode == "allowlist" {
			p.Domains = []string{fmt.Sprintf("d%d.example.com", d.rnd.IntN(100))}
		}
		_, err := d.c.SetEgress(ctx, b.name, p)
		d.count(op, err)
		d.mu.Lock()
		var e *client.Error
		switch {
		case err == nil:
			b.egress = policyString(&p)
		case !(errors.As(err, &e) && e.Status >= 400 && e.Status < 500):
			b.egress = "" // may or may not have been applied
		}
		d.mu.Unlock()
	case opService:
		d.service(ctx, b)
	case opEnv:
		k := fmt.Sprintf("CHAOS_%d", d.rnd.IntN(4))
		v := strconv.Itoa(d.rnd.IntN(1000))
		_, err := d.c.SetEnv(ctx, b.name, map[string]*string{k: &v})
		d.count(op, err)
		d.mu.Lock()
		var e *client.Error
		switch {
		case err == nil:
			b.env[k] = v
		case !(errors.As(err, &e) && e.Status >= 400 && e.Status < 500):
			b.env[k] = "" // may or may not have been applied
		}
		d.mu.Unlock()
	}
}

func (d *driver) live() []*sandboxModel {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*sandboxModel
	for _, b := range d.boxes {
		if b.status != "destroyed" && b.status != "never-created" {
			out = append(out, b)
		}
	}
	return out
}

func (d *driver) setStatus(b *sandboxModel, err error, status string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil && !b.claimed && errors.Is(err, client.ErrSandboxNotFound) {
		// Its create got no answer and claimed nothing: done with it.
		b.status = "never-created"
		return
	}
	if err != nil {
		var e *client.Error
		// A refusal that says nothing changed leaves the status known;
		// anything else may have changed it.
		if errors.As(err, &e) && e.Status >= 400 && e.Status < 500 && e.Code != string(api.CodeTimeout) {
			return
		}
		b.status = ""
		return
	}
	b.status, b.claimed = status, true
}

func (d *driver) markDurable(b *sandboxModel) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b.durable = map[string]string{}
	for p, sum := range b.files {
		if sum != "" {
			b.durable[p] = sum
		}
	}
}

func (d *driver) create(ctx context.Context, warm, idle bool) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	op, typ := opCreate, "basic"
	req := client.CreateRequest{KeepAlive: true, Start: true}
	switch {
	case warm:
		op, typ = opCreateWP, "lite" // the stack keeps a warm pool of lite
	case idle:
		op, req.KeepAlive, req.SleepAfter = opIdle, false, idleSleepAfter
	}
	d.mu.Lock()
	n := d.newName()
	d.mu.Unlock()
	req.Name, req.InstanceType = n, typ
	_, _, err := d.c.Create(ctx, req)
	d.count(op, err)
	b := &sandboxModel{name: n, files: map[string]string{}, durable: map[string]string{}, env: map[string]string{}, egress: "open",
		services: map[string]string{}, idle: idle}
	if err == nil {
		b.status, b.claimed = "running", true
	} else if e := (*client.Error)(nil); errors.As(err, &e) && e.Status >= 400 && e.Status < 500 {
		return // refused: nothing claimed
	}
	d.mu.Lock()
	d.boxes = append(d.boxes, b)
	d.mu.Unlock()
}

// answered is the status an acknowledged lifecycle call answered with.
func answered(info *client.SandboxInfo, def string) string {
	if info != nil && info.Status != "" {
		return info.Status
	}
	return def
}

// policyString is a policy as the model keeps it; nil is the default,
// open.
func policyString(p *client.EgressPolicy) string {
	switch {
	case p == nil || p.Mode == "":
		return "open"
	case len(p.Domains) == 0:
		return p.Mode
	}
	return p.Mode + " " + strings.Join(p.Domains, ",")
}

// exec runs a command whose output the driver knows, and checks it.
func (d *driver) exec(ctx context.Context, b *sandboxModel) {
	n := d.rnd.IntN(1 << 20)
	res, err := d.c.Sandbox(b.name).Run(ctx, []string{"sh", "-c", fmt.Sprintf("echo out-%d; echo err-%d >&2", n, n)}, client.RunOptions{})
	d.count(opExec, err)
	if err != nil {
		d.setStatus(b, err, "running")
		return
	}
	d.setStatus(b, nil, "running")
	if string(res.Stdout) != fmt.Sprintf("out-%d\n", n) || string(res.Stderr) != fmt.Sprintf("err-%d\n", n) || res.ExitCode != 0 {
		d.mu.Lock()
		d.logGaps = append(d.logGaps, fmt.Sprintf("%s: exec output %q %q exit %d", b.name, res.Stdout, res.Stderr, res.ExitCode))
		d.mu.Unlock()
	}
}

// background starts a process printing numbered lines and follows its
// logs from cursors in the background: after a drop it resumes from the
// last cursor seen, and the lines must come on without a gap or a repeat
// until the process exits or its container is replaced (a stale handle,
// which is the documented end).
func (d *driver) background(ctx context.Context, b *sandboxModel) {
	lines := 20 + d.rnd.IntN(40)
	p, err := d.c.Sandbox(b.name).Exec(ctx, []string{"sh", "-c",
		fmt.Sprintf("i=0; while [ $i -lt %d ]; do echo line-$i; i=$((i+1)); sleep 0.05; done", lines)}, client.ExecOptions{})
	d.count(opBgLogs, err)
	if err != nil {
		d.setStatus(b, err, "running")
		return
	}
	d.setStatus(b, nil, "running")
	d.bg.Add(1)
	go func() {
		defer d.bg.Done()
		if gap := follow(p, lines); gap != "" {
			d.mu.Lock()
			d.logGaps = append(d.logGaps, b.name+": "+gap)
			d.mu.Unlock()
		}
	}()
}

// follow reads p's logs from cursors until it exits; "" when the lines
// came in order, each once.
func follow(p *client.Process, lines int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	next, cursor := 0, ""
	var partial []byte
	for attempt := 0; attempt < 60; attempt++ {
		for ev, err := range p.Logs(ctx, cursor, cursor == "", true) {
			if err != nil {
				var e *client.Error
				if errors.As(err, &e) && (e.Code == string(api.CodeStaleHandle) || e.Code == string(api.CodeProcessNotFound)) {
					return "" // the container was replaced: handles end, as documented
				}
				break // dropped: resume from the cursor
			}
			cursor = ev.Cursor
			switch ev.Type {
			case "stdout":
				partial = append(partial, ev.Data...)
				for {
					i := bytes.IndexByte(partial, '\n')
					if i < 0 {
						break
					}
					line := string(partial[:i])
					partial = partial[i+1:]
					if line != fmt.Sprintf("line-%d", next) {
						return fmt.Sprintf("log line %q where line-%d was due (cursor %s)", line, next, cursor)
					}
					next++
				}
			case "exit":
				// A process ended by a signal (a sleep, a destroy or a
				// kill of its container) may stop early; one that exits
				// 0 printed every line, and each must have come.
				if next != lines && (ev.Exit == nil || (ev.Exit.Code == 0 && ev.Exit.Signal == 0)) {
					return fmt.Sprintf("exit %+v after %d of %d lines", ev.Exit, next, lines)
				}
				return ""
			}
		}
		if ctx.Err() != nil {
			return fmt.Sprintf("logs did not end within 3m (%d of %d lines)", next, lines)
		}
		time.Sleep(500 * time.Millisecond)
	}
	return ""
}

// write writes a file of random bytes and records its checksum once the
// write is acknowledged.
func (d *driver) write(ctx context.Context, b *sandboxModel) {
	path := fmt.Sprintf("/workspace/f%d", d.rnd.IntN(6))
	data := make([]byte, 1+d.rnd.IntN(256<<10))
	for i := range data {
		data[i] = byte(d.rnd.UintN(256))
	}
	_, err := d.c.Sandbox(b.name).WriteFile(ctx, path, bytes.NewReader(data), client.WriteOptions{})
	d.count(opWrite, err)
	sum := sha256.Sum256(data)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil && !b.claimed && errors.Is(err, client.ErrSandboxNotFound) {
		b.status = "never-created" // its create got no answer and claimed nothing
		return
	}
	if err != nil {
		var e *client.Error
		if !(errors.As(err, &e) && e.Status >= 400 && e.Status < 500) {
			b.files[path] = "" // may or may not have landed
		}
		if b.status != "destroyed" {
			b.status = ""
		}
		return
	}
	b.files[path] = hex.EncodeToString(sum[:])
	b.status, b.claimed = "running", true // a file write wakes a sleeping sandbox
}

// fork forks b's newest backup; the fork must hold what b's last
// acknowledged backup held, for the paths b has not touched since.
func (d *driver) fork(ctx context.Context, b *sandboxModel) {
	d.mu.Lock()
	n := d.newName()
	expect := map[string]string{}
	for p, sum := range b.durable {
		if b.files[p] == sum {
			expect[p] = sum
		}
	}
	d.mu.Unlock()
	_, _, err := d.c.Fork(ctx, client.CreateRequest{Name: n, InstanceType: "lite", KeepAlive: true}, client.ForkFrom{Sandbox: b.name})
	d.count(opFork, err)
	if err != nil {
		var e *client.Error
		if errors.As(err, &e) && e.Status >= 400 && e.Status < 500 {
			return
		}
		expect = map[string]string{}
	}
	f := &sandboxModel{name: n, status: "created", files: expect, durable: map[string]string{}, env: map[string]string{},
		services: map[string]string{}, claimed: err == nil}
	if err != nil {
		f.status = ""
	}
	d.mu.Lock()
	d.boxes = append(d.boxes, f)
	d.mu.Unlock()
}

// readSum reads a file's sha256 through the client ("" when missing).
func readSum(ctx context.Context, c *client.Client, name, path string) (string, int64, error) {
	r, _, err := c.Sandbox(name).ReadFile(ctx, path)
	if err != nil {
		var e *client.Error
		if errors.As(err, &e) && e.Status == 404 {
			return "", 0, nil
		}
		return "", 0, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// retry runs f until it succeeds or ctx ends (the settle phase, after the
// faults stopped: retryable answers are expected for a while).
func retry(ctx context.Context, f func() error) error {
	var err error
	for {
		if err = f(); err == nil {
			return nil
		}
		var e *client.Error
		if errors.As(err, &e) && !e.Retryable && e.Status < 500 {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

// service declares or removes one of three services; a declared one runs
// a long sleep and restarts always, so a running sandbox runs it.
func (d *driver) service(ctx context.Context, b *sandboxModel) {
	svc := fmt.Sprintf("svc%d", d.rnd.IntN(3))
	remove := d.rnd.IntN(3) == 0
	var err error
	if remove {
		_, err = d.c.RemoveService(ctx, b.name, svc)
	} else {
		_, err = d.c.PutService(ctx, b.name, client.Service{Name: svc, Argv: []string{"sleep", "86400"}, Restart: client.RestartAlways})
	}
	d.count(opService, err)
	d.mu.Lock()
	defer d.mu.Unlock()
	var e *client.Error
	switch {
	case err == nil && remove:
		b.services[svc] = "removed"
	case err == nil:
		b.services[svc] = "declared"
	case !(errors.As(err, &e) && e.Status >= 400 && e.Status < 500):
		b.services[svc] = "" // may or may not have been applied
	}
}
