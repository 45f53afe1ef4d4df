package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/schemas"
)

// fakeGateway answers a few routes the way the Berth gateway does, so the
// examples below that print output run without a stack.
func fakeGateway() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sandboxes", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"name":"demo","instanceType":"basic","status":"created","sleepAfter":"5m0s",
			"keepAlive":false,"env":{"MODE":"dev"},"createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z"}`)
	})
	mux.HandleFunc("GET /v1/sandboxes/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"code":"SANDBOX_NOT_FOUND","message":"no sandbox named %s","retryable":false}}`, r.PathValue("name"))
	})
	mux.HandleFunc("GET /v1/sandboxes/{name}/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		for i, typ := range []string{api.EventCreated, api.EventStartRequested, api.EventStarted} {
			fmt.Fprintf(w, `{"offset":%d,"type":%q,"payload":{},"createdAt":"2026-01-02T03:04:0%dZ","path":"/sandboxes/%s"}`+"\n",
				i+1, typ, i, r.PathValue("name"))
		}
	})
	return httptest.NewServer(mux)
}

// A background job's whole interaction with a sandbox: claim it, run a
// command (the first exec starts a sleeping sandbox), read the output.
func Example() {
	ctx := context.Background()
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))

	if _, _, err := c.Create(ctx, client.CreateRequest{Name: "user-123", SleepAfter: 5 * time.Minute}); err != nil {
		panic(err)
	}
	p, err := c.Sandbox("user-123").Exec(ctx, []string{"sh", "-c", "echo hello > /workspace/hi && cat /workspace/hi"}, client.ExecOptions{})
	if err != nil {
		panic(err)
	}
	out, err := p.Output(ctx, client.OutputOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("exit %d: %s", out.ExitCode, out.Stdout)
}

func ExampleClient_Create() {
	gw := fakeGateway()
	defer gw.Close()
	c := client.New(gw.URL, "token")

	info, created, err := c.Create(context.Background(), client.CreateRequest{
		Name: "demo", SleepAfter: 5 * time.Minute, Env: map[string]string{"MODE": "dev"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Name, info.Status, info.SleepAfter, created)
	// Output: demo created 5m0s true
}

// API errors are *client.Error values; match their code with errors.Is.
func ExampleError() {
	gw := fakeGateway()
	defer gw.Close()
	c := client.New(gw.URL, "token")

	_, err := c.Get(context.Background(), "nope")
	fmt.Println(errors.Is(err, client.ErrSandboxNotFound))
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, e.Retryable)
	}
	// Output:
	// true
	// 404 SANDBOX_NOT_FOUND false
}

// Events reads a sandbox's event stream; follow=true keeps it open for
// live events and reconnects from the last offset on its own.
func ExampleClient_Events() {
	gw := fakeGateway()
	defer gw.Close()
	c := client.New(gw.URL, "token")

	for ev, err := range c.Events(context.Background(), "demo", 0, false) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Offset, client.ShortType(ev.Type))
	}
	// Output:
	// 1 created
	// 2 start-requested
	// 3 started
}

// Follow the catalogue: one create-requested per sandbox ever claimed.
func ExampleClient_CatalogEvents() {
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ev, err := range c.CatalogEvents(ctx, 0, true) {
		if err != nil {
			break // the context ended
		}
		var req schemas.CreateRequested
		_ = json.Unmarshal(ev.Payload, &req)
		fmt.Println("claimed:", req.Path)
	}
}

// Stream a long command's output as it is written; a reconnect resumes
// from the last cursor without a gap or a duplicate.
func ExampleProcess_Logs() {
	ctx := context.Background()
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))
	p, err := c.Sandbox("user-123").Exec(ctx, []string{"make", "test"}, client.ExecOptions{Cwd: "/workspace/app", Timeout: 10 * time.Minute})
	if err != nil {
		panic(err)
	}
	for ev, err := range p.Logs(ctx, "", true, true) {
		if err != nil {
			panic(err)
		}
		switch ev.Type {
		case "stdout":
			os.Stdout.Write(ev.Data)
		case "stderr":
			os.Stderr.Write(ev.Data)
		case "exit":
			fmt.Println("exit code", ev.Exit.Code, "timed out:", ev.Exit.TimedOut)
		}
	}
}

// Start a server, wait until it listens, then stop it.
func ExampleProcess_WaitForPort() {
	ctx := context.Background()
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))
	p, err := c.Sandbox("user-123").Exec(ctx, []string{"python3", "-m", "http.server", "8000"}, client.ExecOptions{})
	if err != nil {
		panic(err)
	}
	if err := p.WaitForPort(ctx, 8000, client.PortOptions{Mode: "http", Timeout: 30 * time.Second}); err != nil {
		panic(err)
	}
	info, _ := p.Kill(ctx, syscall.SIGTERM)
	fmt.Println(info.State)
}

// A stored process id fails closed once its container is gone.
func ExampleSandbox_GetProcess() {
	ctx := context.Background()
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))
	p, err := c.Sandbox("user-123").GetProcess(ctx, "p-0123456789ab-7")
	switch {
	case err != nil:
		panic(err)
	case p == nil:
		fmt.Println("gone: the sandbox slept or its container was replaced; run it again")
	default:
		fmt.Println(p.State)
	}
}

// Sleep backs up /workspace and removes the container; Start (or the next
// Exec) restores it. CreateBackup snapshots without stopping.
func ExampleClient_Sleep() {
	ctx := context.Background()
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))
	if _, err := c.Sleep(ctx, "user-123"); err != nil {
		panic(err)
	}
	backups, err := c.ListBackups(ctx, "user-123")
	if err != nil {
		panic(err)
	}
	fmt.Println("restore source:", backups[0].BackupID)
	if _, err := c.Start(ctx, "user-123"); err != nil {
		panic(err)
	}
}

// Env changes apply to processes started afterwards; nil unsets.
func ExampleClient_SetEnv() {
	ctx := context.Background()
	c := client.New(os.Getenv("BERTH_URL"), os.Getenv("BERTH_TOKEN"))
	info, err := c.SetEnv(ctx, "user-123", map[string]*string{"REGION": client.Ptr("eu"), "MODE": nil})
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Env)
}
