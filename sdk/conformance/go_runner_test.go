package conformance

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
)

// goRunner runs scenarios with the Go client (client/).
type goRunner struct {
	c, bad   *client.Client
	scenario string
	names    map[string]string // sandbox label -> name
	procs    map[string]*client.Process
	procSb   map[string]string // process label -> its sandbox's name
	cursors  map[string]string
	created  []string
	f        *features
}

func newGoRunner(url, token, scenario string) *goRunner {
	return &goRunner{
		c:        client.New(url, token),
		bad:      client.New(url, "not-the-token"),
		scenario: scenario,
		names:    map[string]string{}, procs: map[string]*client.Process{}, procSb: map[string]string{}, cursors: map[string]string{},
		f: newFeatures(url, token),
	}
}

func (r *goRunner) name(label string) string {
	if n, ok := r.names[label]; ok {
		return n
	}
	n := sandboxName("go", r.scenario, label)
	r.names[label] = n
	return n
}

// cleanup destroys what the scenario created and left behind.
func (r *goRunner) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.f.close()
	for _, n := range r.created {
		_, _ = r.c.Destroy(ctx, n)
	}
}

func (r *goRunner) run(ctx context.Context, sc Scenario) error {
	defer r.cleanup()
	for i, st := range sc.Steps {
		got, err := r.step(ctx, st)
		if werr := st.object("expectError"); werr != nil {
			if err == nil {
				return fmt.Errorf("step %d (%s): no error, want %v", i+1, st.Op(), werr["code"])
			}
			if cerr := checkGoError(err, werr); cerr != nil {
				return fmt.Errorf("step %d (%s): %v", i+1, st.Op(), cerr)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("step %d (%s): %v", i+1, st.Op(), err)
		}
		if exp := st.object("expect"); exp != nil {
			if cerr := checkExpect(exp, got); cerr != nil {
				return fmt.Errorf("step %d (%s): %v", i+1, st.Op(), cerr)
			}
		}
	}
	return nil
}

// checkGoError: the Go client's form of an error class is its code, which
// errors.Is matches.
func checkGoError(err error, want map[string]any) error {
	code := want["code"].(string)
	if !errors.Is(err, client.ErrorCode(code)) {
		return fmt.Errorf("error %v, want code %s", err, code)
	}
	var ae *client.Error
	if !errors.As(err, &ae) {
		return fmt.Errorf("error %T is not a *client.Error", err)
	}
	if s, ok := want["status"].(float64); ok && ae.Status != int(s) {
		return fmt.Errorf("status %d, want %v", ae.Status, s)
	}
	if rt, ok := want["retryable"].(bool); ok && ae.Retryable != rt {
		return fmt.Errorf("retryable %v, want %v", ae.Retryable, rt)
	}
	return nil
}

func (r *goRunner) proc(st Step) (*client.Process, error) {
	if id := st.str("processId"); id != "" {
		return r.c.Sandbox(r.name(st.str("sandbox"))).Process(id), nil
	}
	p, ok := r.procs[st.str("process")]
	if !ok {
		return nil, fmt.Errorf("no process %q in the scenario", st.str("process"))
	}
	return p, nil
}

func ms(st Step, k string) time.Duration {
	n, _ := st.num(k)
	return time.Duration(n) * time.Millisecond
}

func outputMap(o client.Output, base64Enc bool) map[string]any {
	enc := func(b []byte) string {
		if base64Enc {
			return base64.StdEncoding.EncodeToString(b)
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return map[string]any{"stdout": enc(o.Stdout), "stderr": enc(o.Stderr), "exitCode": o.ExitCode,
		"timedOut": o.TimedOut, "truncated": o.Truncated}
}

func infoMap(p *client.ProcessInfo) map[string]any {
	m := map[string]any{"state": fmt.Sprint(p.State), "id": p.ID}
	if p.Exit != nil {
		m["exitCode"] = p.Exit.Code
		m["timedOut"] = p.Exit.TimedOut
	}
	return m
}

func execOpts(st Step) client.ExecOptions {
	o := client.ExecOptions{Cwd: st.str("cwd"), Timeout: ms(st, "timeoutMs"), User: st.str("user")}
	if env := st.object("env"); env != nil {
		o.Env = map[string]*string{}
		for k, v := range env {
			if s, ok := v.(string); ok {
				o.Env[k] = &s
			} else {
				o.Env[k] = nil
			}
		}
	}
	return o
}

func (r *goRunner) step(ctx context.Context, st Step) (map[string]any, error) {
	c := r.c
	if bad, _ := st.boolean("badToken"); bad {
		c = r.bad
	}
	if st.str("asToken") != "" {
		var err error
		if c, err = r.asToken(st); err != nil {
			return nil, err
		}
	}
	name := r.name(st.str("sandbox"))
	sb := c.Sandbox(name)
	switch st.Op() {
	case "create":
		req := client.CreateRequest{Name: name}
		if o := st.object("options"); o != nil {
			req.KeepAlive, _ = o["keepAlive"].(bool)
			req.Image, _ = o["image"].(string)
			if s, ok := o["dozeAfter"].(float64); ok {
				d := time.Duration(s * float64(time.Second))
				req.DozeAfter = &d
			}
			if env, ok := o["env"].(map[string]any); ok {
				req.Env = map[string]string{}
				for k, v := range env {
					req.Env[k] = fmt.Sprint(v)
				}
			}
		}
		_, created, err := c.Create(ctx, req)
		if err == nil {
			r.created = append(r.created, name)
		}
		return map[string]any{"created": created}, err
	case "info":
		info, err := c.Get(ctx, name)
		if err != nil {
			return nil, err
		}
		env := map[string]any{}
		for k, v := range info.Env {
			env[k] = v
		}
		got := map[string]any{"status": fmt.Sprint(info.Status), "env": env, "image": info.Image, "hasImageDigest": info.ImageDigest != ""}
		if info.Egress != nil {
			b, _ := json.Marshal(info.Egress)
			var eg map[string]any
			_ = json.Unmarshal(b, &eg)
			got["egress"] = eg
		}
		return got, nil
	case "waitStatus":
		// Polls the sandbox's state (which never thaws or wakes it) until
		// it has the status, or timeoutMs passed: answers the last one.
		deadline := time.Now().Add(ms(st, "timeoutMs"))
		for {
			info, err := c.Get(ctx, name)
			if err != nil {
				return nil, err
			}
			if info.Status == st.str("status") || time.Now().After(deadline) {
				return map[string]any{"status": info.Status}, nil
			}
			time.Sleep(200 * time.Millisecond)
		}
	case "sleep":
		_, err := c.Sleep(ctx, name)
		return nil, err
	case "start":
		_, err := c.Start(ctx, name)
		return nil, err
	case "destroy":
		_, err := c.Destroy(ctx, name)
		return nil, err
	case "setEnv":
		env := execOpts(st).Env
		_, err := c.SetEnv(ctx, name, env)
		return nil, err
	case "exec":
		p, err := sb.Exec(ctx, st.strings("argv"), execOpts(st))
		if err != nil {
			return nil, err
		}
		if as := st.str("as"); as != "" {
			r.procs[as] = p
			r.procSb[as] = name
		}
		if other := st.object("expect")["idDiffersFrom"]; other != nil {
			if prev := r.procs[other.(string)]; prev != nil && prev.ID == p.ID {
				return nil, fmt.Errorf("a new process has the id %s of an earlier one", p.ID)
			}
		}
		return map[string]any{"hasPid": p.PID > 0, "id": p.ID, "idDiffersFrom": st.object("expect")["idDiffersFrom"]}, nil
	case "run":
		mb, _ := st.num("maxBytes")
		res, err := sb.Run(ctx, st.strings("argv"), client.RunOptions{ExecOptions: execOpts(st), MaxBytes: mb})
		if err != nil {
			return nil, err
		}
		return outputMap(res.Output, st.str("encoding") == "base64"), nil
	case "output":
		p, err := r.proc(st)
		if err != nil {
			return nil, err
		}
		mb, _ := st.num("maxBytes")
		o, err := p.Output(ctx, client.OutputOptions{MaxBytes: mb, Timeout: ms(st, "timeoutMs")})
		if err != nil {
			return nil, err
		}
		return outputMap(*o, st.str("encoding") == "base64"), nil
	case "status", "waitForExit", "kill":
		p, err := r.proc(st)
		if err != nil {
			return nil, err
		}
		var info *client.ProcessInfo
		switch st.Op() {
		case "status":
			info, err = p.Status(ctx)
		case "waitForExit":
			info, err = p.Wait(ctx, ms(st, "timeoutMs"))
		default:
			sig := syscall.SIGTERM
			if st.str("signal") == "KILL" {
				sig = syscall.SIGKILL
			}
			info, err = p.Kill(ctx, sig)
		}
		if err != nil {
			return nil, err
		}
		return infoMap(info), nil
	case "getProcess":
		p, err := r.proc(st)
		if err != nil {
			return nil, err
		}
		got, err := r.c.Sandbox(r.procSb[st.str("process")]).GetProcess(ctx, p.ID)
		return map[string]any{"found": got != nil}, err
	case "waitForLog":
		p, err := r.proc(st)
		if err != nil {
			return nil, err
		}
		m, err := p.WaitForLog(ctx, st.str("pattern"), client.LogWaitOptions{Timeout: ms(st, "timeoutMs")})
		if err != nil {
			return nil, err
		}
		if k := st.str("saveCursor"); k != "" {
			r.cursors[k] = m.Cursor
		}
		return map[string]any{"line": m.Line}, nil
	case "waitForPort":
		p, err := r.proc(st)
		if err != nil {
			return nil, err
		}
		return nil, p.WaitForPort(ctx, mustNum(st, "port"), client.PortOptions{Timeout: ms(st, "timeoutMs")})
	case "writeStdin":
		p, err := r.proc(st)
		if err != nil {
			return nil, err
		}
		_, err = p.WriteStdin(ctx, []byte(st.str("text")))
		return nil, err
	case "logs":
		return r.logs(ctx, st)
	case "writeFile":
		data, err := base64.StdEncoding.DecodeString(st.str("base64"))
		if err != nil {
			return nil, err
		}
		mk, _ := st.boolean("mkdir")
		fi, err := sb.WriteFile(ctx, st.str("path"), bytes.NewReader(data), client.WriteOptions{Mkdir: mk})
		if err != nil {
			return nil, err
		}
		return map[string]any{"size": fi.Size}, nil
	case "readFile":
		rc, _, err := sb.ReadFile(ctx, st.str("path"))
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}, err
	case "stat":
		fi, err := sb.Stat(ctx, st.str("path"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": fmt.Sprint(fi.Type), "size": fi.Size}, nil
	case "list":
		list, err := sb.List(ctx, st.str("path"), client.ListOptions{})
		var names []string
		for _, f := range list {
			names = append(names, f.Name)
		}
		return map[string]any{"names": names}, err
	case "remove":
		return nil, sb.Remove(ctx, st.str("path"), false)
	case "events":
		var types []string
		for ev, err := range c.Events(ctx, name, 0, false) {
			if err != nil {
				return nil, err
			}
			types = append(types, client.ShortType(ev.Type))
		}
		return map[string]any{"types": types}, nil
	case "backup":
		_, err := c.CreateBackup(ctx, name)
		return nil, err
	case "listBackups":
		list, err := c.ListBackups(ctx, name)
		return map[string]any{"count": len(list)}, err
	case "fork":
		to := r.name(st.str("to"))
		_, _, err := c.Fork(ctx, client.CreateRequest{Name: to}, client.ForkFrom{Sandbox: name})
		if err == nil {
			r.created = append(r.created, to)
		}
		return nil, err
	case "getSecret":
		_, err := c.GetSecret(ctx, r.name(st.str("secret")))
		return nil, err
	case "unexposePort":
		return nil, c.Unexpose(ctx, name, mustNum(st, "port"))
	}
	if got, ok, err := r.stepFeature(ctx, c, st); ok {
		return got, err
	}
	return nil, fmt.Errorf("unknown op %q", st.Op())
}

func mustNum(st Step, k string) int {
	n, _ := st.num(k)
	return n
}

// logs reads a process's log stream: "take" stops after that many events,
// "restartGatewayAfter" kills and restarts the gateway after that many
// (the stream must resume from its cursor), "saveCursor" keeps the last
// event's cursor for a later "since".
func (r *goRunner) logs(ctx context.Context, st Step) (map[string]any, error) {
	p, err := r.proc(st)
	if err != nil {
		return nil, err
	}
	since := r.cursors[st.str("since")]
	if since == "" {
		since = st.str("since") // a literal (e.g. an invalid cursor)
	}
	replay := true
	if v, ok := st.boolean("replay"); ok {
		replay = v
	}
	follow, _ := st.boolean("follow")
	take, _ := st.num("take")
	restartAfter, _ := st.num("restartGatewayAfter")
	var stdout, stderr bytes.Buffer
	got := map[string]any{}
	n := 0
	lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for ev, err := range p.Logs(lctx, since, replay, follow) {
		if err != nil {
			return nil, err
		}
		n++
		switch ev.Type {
		case "stdout":
			stdout.Write(ev.Data)
		case "stderr":
			stderr.Write(ev.Data)
		case "exit":
			got["exitCode"] = ev.Exit.Code
		}
		got["lastType"] = ev.Type
		if k := st.str("saveCursor"); k != "" {
			r.cursors[k] = ev.Cursor
		}
		if n == restartAfter {
			if err := restartGateway(); err != nil {
				return nil, err
			}
		}
		if take > 0 && n >= take {
			break
		}
	}
	got["stdout"], got["stderr"], got["count"] = stdout.String(), stderr.String(), n
	return got, nil
}

func restartGateway() error {
	resp, err := http.Post(control+"/restart-gateway", "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("restart the gateway: %s", b)
	}
	return nil
}

// TestGoClient runs every scenario with the Go client.
func TestGoClient(t *testing.T) {
	p, err := newCountingProxy()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { recordCount("go", p.count.Load()) }()
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			err := newGoRunner(p.URL, stack.Token, sc.Name).run(ctx, sc)
			recordResult("go", sc.Name, err)
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
