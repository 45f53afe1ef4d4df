// Package conformance runs the language-neutral scenarios of this
// directory (*.json) with every client of Berth against one real stack: the
// Go client in this process, the TypeScript SDK (sdk/typescript) and the
// Python SDK (sdk/python) as child processes. Every request of every client
// goes through a proxy that checks it and its answer against
// schemas/openapi.yaml.
package conformance

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/imagetest"
	"github.com/berthdev/berth/internal/stacktest"
)

var (
	stack *stacktest.Stack
	// control is the address of the control server the scenarios' steps
	// that act on the stack itself (restartGateway) call.
	control string
)

func TestMain(m *testing.M) {
	// The SDKs build while the stack starts.
	startPreps()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	// The image-user scenario names an image of the shapes people bring.
	if err := imagetest.Build(ctx, ""); err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, "image shapes:", err)
		os.Exit(1)
	}
	// Three clients run their scenarios on this one host side by side:
	// counted against this machine's two cores, their sandboxes filled it
	// (NO_CAPACITY for the last client's). Placement against real capacity
	// is tested on hosts of its own (tests/capacity_test.go, tests/hosts).
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_HOST_CPUS=256", "BERTH_HOST_MEMORY=1TiB"}})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	stack = s
	control, err = serveControl()
	if err != nil {
		fmt.Fprintln(os.Stderr, "control server:", err)
		s.Close()
		os.Exit(1)
	}
	code := m.Run()
	printTable()
	if specReport() > 0 && code == 0 {
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	<-pyPrep.done
	if pyPrep.dir != "" {
		os.RemoveAll(pyPrep.dir)
	}
	os.Exit(code)
}

// gatewayMu keeps a gateway restart from overlapping another.
var gatewayMu sync.Mutex

// serveControl serves POST /restart-gateway: the gateway is SIGKILLed and
// started again, so that a client's follow stream loses its connection
// mid-way, as it would in a deploy, and must resume from its cursor.
func serveControl() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /restart-gateway", func(w http.ResponseWriter, r *http.Request) {
		gatewayMu.Lock()
		defer gatewayMu.Unlock()
		stack.StopGateway(syscall.SIGKILL)
		if err := stack.StartGateway(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String(), nil
}

// countingProxy is the URL a client is given: it forwards to the stack's
// spec-checking proxy and counts the answers that passed through it (each
// of which the spec check saw).
type countingProxy struct {
	URL   string
	count atomic.Int64
}

func newCountingProxy() (*countingProxy, error) {
	target, err := url.Parse(stack.CheckedURL())
	if err != nil {
		return nil, err
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // streams arrive as written
	// A 502 is the checking proxy's own answer while the gateway restarts,
	// which nothing checked.
	rp.ModifyResponse = func(r *http.Response) error {
		if r.StatusCode != http.StatusBadGateway {
			p.count.Add(1)
		}
		return nil
	}
	// A preview's path URL (/v1/preview/...) is on this address too, since
	// the gateway builds it from the request's host; its answers are the
	// sandbox's app's, which the API's spec does not describe: they go
	// straight to the gateway.
	gw, err := url.Parse(stack.URL)
	if err != nil {
		return nil, err
	}
	preview := httputil.NewSingleHostReverseProxy(gw)
	mux := http.NewServeMux()
	mux.Handle("/", rp)
	mux.Handle("/v1/preview/", preview)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go http.Serve(ln, mux)
	p.URL = "http://" + ln.Addr().String()
	return p, nil
}

// specReport prints the spec check's findings over the whole run and
// answers how many answers the spec does not describe.
func specReport() int {
	pairs, bad := stacktest.SpecReport()
	fmt.Fprintf(os.Stderr, "openapi: %d distinct (route, status) pairs checked against schemas/openapi.yaml, %d violations\n", len(pairs), len(bad))
	if os.Getenv("BERTH_SPEC_PAIRS") != "" {
		for _, p := range pairs {
			fmt.Fprintln(os.Stderr, "  ", p)
		}
	}
	for _, v := range bad {
		fmt.Fprintln(os.Stderr, "FAIL: openapi mismatch:", v)
	}
	return len(bad)
}
