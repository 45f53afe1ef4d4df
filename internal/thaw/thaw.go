// Package thaw serves a gateway's direct thaw of a dozing sandbox on the
// worker that froze it.
package thaw

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/hostproxy"
	"github.com/berthdev/berth/internal/hosts/upkeep"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/names"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// Server answers a gateway's direct thaw (activities.ThawDirect): the
// container runs again before the answer, and the workflow hears of it
// after (contract.SignalThawed), so the request that caused it waits on
// Docker alone. It is served by the host proxy and, on a host without
// one, on a unix socket for the gateways of this machine
// (hosttls.ThawSocket).
type Server struct {
	acts     *activities.Activities
	temporal client.Client
	log      *zap.Logger
}

// thawWait bounds how long a direct thaw waits for an activity that holds
// the container (a stop's backup can take minutes): past it the gateway
// asks the workflow instead.
const thawWait = 2 * time.Second

// thawAnswer is the body of a direct thaw's 200 or 409.
type thawAnswer struct {
	// Outcome: "thawed" (it was dozing and runs now), "running" (it was
	// not frozen), "unknown" (409: not a doze this worker may end; ask the
	// workflow).
	Outcome string `json:"outcome"`
}

func (t *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, rest, ok := hosttls.SplitRoutedPath(r.URL.EscapedPath())
	if !ok || rest != hosttls.ThawPath || !names.ValidContainerID(id) {
		hostproxy.Refuse(w, http.StatusNotFound, api.CodeNotFound, "not a thaw path (/c/<container id>/thaw)")
		return
	}
	if r.Method != http.MethodPost {
		hostproxy.Refuse(w, http.StatusMethodNotAllowed, api.CodeValidation, "a thaw is a POST")
		return
	}
	cause := r.URL.Query().Get("cause")
	if err := (contract.ThawRequest{Cause: cause}).Validate(); err != nil {
		hostproxy.Refuse(w, http.StatusBadRequest, api.CodeValidation, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), thawWait)
	defer cancel()
	res, err := t.acts.ThawDirect(ctx, id, r.Header.Get("Authorization"))
	switch {
	case errors.Is(err, activities.ErrThawNotHere):
		hostproxy.Refuse(w, http.StatusNotFound, api.CodeContainerUnavailable, "no running sandbox container "+id+" on this host")
		return
	case errors.Is(err, activities.ErrThawWrongToken):
		hostproxy.Refuse(w, http.StatusUnauthorized, api.CodeUnauthorized, "the token is not this container's boot's")
		return
	case err != nil:
		t.log.Info("direct thaw: asking the workflow instead", zap.String("container", id), zap.Error(err))
		answerThaw(w, http.StatusConflict, "unknown")
		return
	}
	switch res.Outcome {
	case activities.Thawed:
		answerThaw(w, http.StatusOK, "thawed")
		go t.tell(id, cause, res)
	case activities.ThawRunning:
		answerThaw(w, http.StatusOK, "running")
	default:
		answerThaw(w, http.StatusConflict, "unknown")
	}
}

func answerThaw(w http.ResponseWriter, status int, outcome string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(thawAnswer{Outcome: outcome})
}

// tellFor bounds how long the worker keeps trying to tell the workflow of a
// direct thaw. Until it is told, the workflow shows the sandbox dozing; a
// worker that restarts meanwhile freezes the container again (MatchFreezes)
// and the next request thaws it through the workflow.
const tellFor = 10 * time.Minute

// tell signals the sandbox's workflow that its container was thawed,
// retrying while Temporal does not answer.
func (t *Server) tell(id, cause string, res activities.ThawResult) {
	ctx, cancel := context.WithTimeout(context.Background(), tellFor)
	defer cancel()
	sig := contract.ThawedSignal{ContainerID: id, Token: res.Token, Cause: cause, At: res.At}
	for wait := 100 * time.Millisecond; ; wait = min(wait*2, 10*time.Second) {
		err := upkeep.SignalSandbox(ctx, t.temporal, res.Sandbox, contract.SignalThawed, sig)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.log.Warn("could not tell the workflow of a thaw", sandboxlog.Of(res.Sandbox, ""), zap.Error(err))
			return
		case <-time.After(wait):
		}
	}
}

// ServeSocket serves h on the unix socket path until ctx ends. The
// socket is the owner's alone (0600): gateways of this machine run as the
// worker's user; sandboxes never see the data directory.
func ServeSocket(ctx context.Context, path string, h http.Handler, log *zap.Logger) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	_ = os.Remove(path) // a socket a killed worker left
	ln, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: zap.NewStdLog(log.WithOptions(zap.IncreaseLevel(zap.WarnLevel)))}
	go func() {
		<-ctx.Done()
		// The file stays: a newer worker of this host may have taken the
		// path over already (a rolling upgrade).
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("thaw socket stopped", zap.Error(err))
		}
	}()
	return nil
}

// New is the direct thaw of the dozes acts froze, telling their workflows
// through temporal.
func New(acts *activities.Activities, temporal client.Client, log *zap.Logger) *Server {
	return &Server{acts: acts, temporal: temporal, log: log}
}
