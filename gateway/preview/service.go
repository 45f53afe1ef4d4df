package preview

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/berthdev/berth/api"
)

// bufPool is a sync.Pool as httputil.BufferPool.
type bufPool struct{ sync.Pool }

func (b *bufPool) Get() []byte  { return *b.Pool.Get().(*[]byte) }
func (b *bufPool) Put(p []byte) { b.Pool.Put(&p) }

// stillWaking answers a preview whose sandbox did not finish waking within
// the wait: 503 with Retry-After, like a port that does not accept.
func stillWaking(pw *wait) *api.Error {
	e := api.NewError(http.StatusServiceUnavailable, api.CodeContainerUnavailable,
		"sandbox "+pw.name+" is still waking (waited "+pw.waited.String()+"); retry")
	e.Retryable, e.RetryAfterMs = true, 2000
	return e
}

// servingPort names the declared service that serves port, or "".
func servingPort(services []api.Service, port int) string {
	for _, svc := range services {
		if svc.Port == port {
			return svc.Name
		}
	}
	return ""
}

// whyNotListening completes a preview's 503: for a port a declared
// service serves, how the supervisor runs that service (so a crash loop
// or a missing executable reads in the answer); else a hint.
func (p *Previews) whyNotListening(ctx context.Context, pw *wait) string {
	if pw.service == "" {
		return "is a server running on it? (declare it as a service with this port to have every wake start it)"
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	st, ok := p.sb.ServiceStates(ctx, pw.name)[pw.service]
	if !ok {
		return "service " + pw.service + " serves it; its state is unknown (see berth service ls " + pw.name + ")"
	}
	msg := "service " + pw.service + " serves it and is " + st.State
	if st.Restarts > 0 {
		msg += " after " + strconv.Itoa(st.Restarts) + " restarts"
	}
	if st.LastExit != nil {
		msg += "; its last run exited with code " + strconv.Itoa(st.LastExit.Code)
	}
	if st.LastError != "" {
		msg += "; its last start failed: " + st.LastError
	}
	if st.State == "running" {
		msg += " but does not listen on the port yet"
	}
	return msg
}
