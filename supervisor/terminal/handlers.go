package terminal

import (
	"net/http"
	"os"
	"strconv"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

const maxTerminalSize = 4096

func checkSize(cols, rows int) *httpapi.Error {
	if cols < 1 || cols > maxTerminalSize || rows < 1 || rows > maxTerminalSize {
		return httpapi.BadRequest("cols and rows must be between 1 and " + strconv.Itoa(maxTerminalSize) +
			", got " + strconv.Itoa(cols) + "x" + strconv.Itoa(rows))
	}
	return nil
}

// defaultShell is the image's bash if it has one, else sh, as a login
// shell (so /etc/profile sets PATH and the prompt).
func defaultShell() []string {
	if fi, err := os.Stat("/bin/bash"); err == nil && fi.Mode()&0o111 != 0 {
		return []string{"/bin/bash", "-l"}
	}
	return []string{"/bin/sh", "-l"}
}

func (s *Service) createTerminal(w http.ResponseWriter, r *http.Request) error {
	var req api.TerminalRequest
	if err := httpapi.DecodeJSON(r, &req, true); err != nil {
		return err
	}
	if req.Cols == 0 {
		req.Cols = 80
	}
	if req.Rows == 0 {
		req.Rows = 24
	}
	if err := checkSize(req.Cols, req.Rows); err != nil {
		return err
	}
	argv := req.Argv
	if len(argv) == 0 {
		argv = defaultShell()
	}
	if argv[0] == "" {
		return httpapi.BadRequest("argv[0] must name the executable")
	}
	term := "xterm-256color"
	cmd, aerr := s.launcher.PrepareAs(req.User, argv, req.Cwd, req.Env, api.Env{"TERM": &term})
	if aerr != nil {
		return aerr
	}
	t, aerr := s.terms.spawn(terminalSpec{Command: cmd, cols: req.Cols, rows: req.Rows})
	if aerr != nil {
		return aerr
	}
	v := t.view()
	v.State, v.Exit, v.EndedAt = "running", nil, nil // as started
	httpapi.WriteJSON(w, http.StatusCreated, v)
	return nil
}

func (s *Service) listTerminals(w http.ResponseWriter, r *http.Request) error {
	ts := s.terms.list()
	out := make([]api.Terminal, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.view())
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Service) lookupTerminal(r *http.Request) (*terminal, error) {
	id := r.PathValue("id")
	n, err := httpapi.ParseHandleID(id, s.tag, terminalHandle())
	if err != nil {
		return nil, err
	}
	t := s.terms.get(n)
	if t == nil {
		return nil, httpapi.MissingHandle(id, terminalHandle())
	}
	return t, nil
}

func (s *Service) getTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, t.view())
	return nil
}

// closeTerminal hangs up and answers with the final state. Closing an
// exited terminal is a no-op.
func (s *Service) closeTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	s.terms.close(t, s.killGrace)
	httpapi.WriteJSON(w, http.StatusOK, t.view())
	return nil
}

func (s *Service) resizeTerminal(w http.ResponseWriter, r *http.Request) error {
	t, err := s.lookupTerminal(r)
	if err != nil {
		return err
	}
	var req api.ResizeRequest
	if err := httpapi.DecodeJSON(r, &req, false); err != nil {
		return err
	}
	if err := checkSize(req.Cols, req.Rows); err != nil {
		return err
	}
	if err := t.resize(req.Cols, req.Rows); err != nil {
		return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, "resize: "+err.Error())
	}
	httpapi.WriteJSON(w, http.StatusOK, t.view())
	return nil
}
