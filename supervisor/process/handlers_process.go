package process

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// createProcess answers once the process runs (execve succeeded), not when
// it ends: 201 with the process as it started.
func (s *Service) createProcess(w http.ResponseWriter, r *http.Request) error {
	var req api.ExecRequest
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return httpapi.BadRequest("argv must be a non-empty array whose first element names the executable; no shell is added, use [\"sh\", \"-c\", \"...\"] for shell syntax")
	}
	var pipe bool
	switch req.Stdin {
	case "", "null":
	case "pipe":
		pipe = true
	default:
		return httpapi.BadRequest(`stdin must be "pipe" or "null", got ` + strconv.Quote(req.Stdin))
	}
	if err := checkWait(&req, pipe); err != nil {
		return err
	}
	cmd, aerr := s.launcher.PrepareAs(req.User, req.Argv, req.Cwd, req.Env, nil)
	if aerr != nil {
		return aerr
	}
	spec := spawnSpec{Command: cmd, stdinPipe: pipe}
	if req.Timeout != nil {
		spec.timeout = time.Duration(*req.Timeout)
	}
	p, aerr := s.procs.spawn(spec)
	if aerr != nil {
		return aerr
	}
	if req.Wait {
		s.answerWhenDone(w, r, p, req.Encoding, req.MaxBytes)
		return nil
	}
	// The view as started: state "running" even if a fast process has
	// already gone; the exit is what wait/output/logs are for.
	httpapi.WriteJSON(w, http.StatusCreated, api.Process{
		ID: p.id, PID: p.pid, Command: p.argv, Cwd: p.cwd, State: "running", StartedAt: p.started,
	})
	return nil
}

func (s *Service) listProcesses(w http.ResponseWriter, r *http.Request) error {
	ps := s.procs.list()
	out := make([]api.Process, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.view())
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Service) getProcess(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, p.view())
	return nil
}

// kill signals the process group (grandchildren included). Killing a
// process that already exited is a no-op answered with its final state, so
// racing a natural exit is never an error.
func (s *Service) kill(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	var req struct {
		Signal *signalSpec `json:"signal"`
	}
	if err := httpapi.DecodeJSON(r, &req, true); err != nil {
		return err
	}
	sig := syscall.SIGTERM
	if req.Signal != nil {
		sig = syscall.Signal(*req.Signal)
	}
	if err := s.procs.signalGroup(p, sig); err != nil {
		return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, "kill: "+err.Error())
	}
	httpapi.WriteJSON(w, http.StatusOK, p.view())
	return nil
}

// maxStdinBody bounds one stdin write.
const maxStdinBody = 8 << 20

// writeStdin writes the request body to the process's stdin pipe. The body
// is raw bytes, or with Content-Type application/json {"data": base64} or
// {"text": "..."}. The write blocks while the pipe is full and gives up when
// the client goes away.
func (s *Service) writeStdin(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	if p.stdin == nil {
		return httpapi.NewError(http.StatusConflict, api.CodeStdinNotPiped, `stdin of this process is /dev/null; start it with "stdin": "pipe" to write to it`).With("id", p.id)
	}
	data, err := readStdinBody(r)
	if err != nil {
		return err
	}
	p.stdinWrite.Lock()
	defer p.stdinWrite.Unlock()
	if p.exited() {
		return httpapi.NewError(http.StatusConflict, api.CodeProcessNotRunning, "process "+p.id+" has exited").With("id", p.id)
	}
	if p.stdinIsClosed() {
		return stdinClosedError(p)
	}
	stop := context.AfterFunc(r.Context(), func() { p.stdin.SetWriteDeadline(time.Now()) })
	n, werr := p.stdin.Write(data)
	if !stop() {
		p.stdin.SetWriteDeadline(time.Time{})
	}
	switch {
	case werr == nil:
	case errors.Is(werr, os.ErrClosed) || errors.Is(werr, syscall.EPIPE):
		return stdinClosedError(p).With("written", n)
	case errors.Is(werr, os.ErrDeadlineExceeded):
		return nil // the client is gone; nobody to answer
	default:
		return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, "stdin write: "+werr.Error())
	}
	httpapi.WriteJSON(w, http.StatusOK, api.StdinWritten{Written: n})
	return nil
}

func stdinClosedError(p *process) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, api.CodeStdinClosed, "stdin of process "+p.id+" is closed").With("id", p.id)
}

func readStdinBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxStdinBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, httpapi.NewError(http.StatusRequestEntityTooLarge, api.CodePayloadTooLarge,
				"stdin write larger than "+strconv.Itoa(maxStdinBody)+" bytes; split it")
		}
		return nil, httpapi.BadRequest("reading request body: " + err.Error())
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return body, nil
	}
	var req struct {
		Data *string `json:"data"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, httpapi.BadRequest("invalid JSON body: " + err.Error())
	}
	switch {
	case req.Data != nil && req.Text == nil:
		b, err := base64.StdEncoding.DecodeString(*req.Data)
		if err != nil {
			return nil, httpapi.BadRequest("data must be standard base64: " + err.Error())
		}
		return b, nil
	case req.Text != nil && req.Data == nil:
		return []byte(*req.Text), nil
	}
	return nil, httpapi.BadRequest(`JSON stdin body must be {"data": "<base64>"} or {"text": "..."}`)
}

// closeStdin sends EOF to the process. Idempotent.
func (s *Service) closeStdin(w http.ResponseWriter, r *http.Request) error {
	p, err := s.lookup(r)
	if err != nil {
		return err
	}
	if p.stdin == nil {
		return httpapi.NewError(http.StatusConflict, api.CodeStdinNotPiped, "stdin of this process is /dev/null; there is nothing to close").With("id", p.id)
	}
	p.closeStdin()
	httpapi.WriteJSON(w, http.StatusOK, api.StdinClosed{ID: p.id, StdinClosed: true})
	return nil
}
