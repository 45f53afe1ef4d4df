package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/workflows"
)

// Process routes go straight to the sandbox's supervisor, which owns the
// processes and answers in the final API shapes; the gateway only finds the
// supervisor, authenticates to it and streams both ways.

// processIDRE matches a supervisor process id (p-<boot tag>-<n>).
var processIDRE = regexp.MustCompile(`^p-[0-9a-f]{12}-[1-9][0-9]*$`)

// maxRetryBody is the largest body kept in memory to retry a request once
// after the cached supervisor turned out to be stale.
const maxRetryBody = 1 << 20

func (s *Server) processes(c echo.Context) error {
	name := c.Param("name")
	if err := validName(name); err != nil {
		return sandboxNotFound(name)
	}
	req := c.Request()
	rest := strings.TrimPrefix(req.URL.Path, "/v1/sandboxes/"+name+"/processes")
	wake := req.Method == http.MethodPost && rest == "" // exec starts a stopped sandbox
	body, replayable, err := bufferBody(req)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		t, err := s.resolve(req.Context(), name, wake)
		var nc *noContainer
		if errors.As(err, &nc) {
			return noContainerAnswer(c, nc, rest)
		}
		if err != nil {
			return err
		}
		resp, err := s.forward(req.Context(), t, req, "/v1/processes"+rest, body)
		if err != nil {
			s.targets.drop(name)
			if req.Context().Err() != nil {
				return nil // the client left
			}
			if attempt == 0 && replayable {
				continue
			}
			s.log.Info("supervisor unreachable", zap.String("sandbox", name), zap.Error(err))
			return unavailable("the sandbox's container is not reachable right now; retry")
		}
		if resp.StatusCode == http.StatusUnauthorized {
			// Another boot answers at the cached address: refresh once.
			resp.Body.Close()
			s.targets.drop(name)
			if attempt == 0 && replayable {
				continue
			}
			return unavailable("the sandbox's container was replaced; retry")
		}
		return stream(c, resp)
	}
}

// noContainerAnswer: reads never wake a sandbox. The list is empty, a
// process is not found, and any other handle belongs to a container that
// is gone.
func noContainerAnswer(c echo.Context, nc *noContainer, rest string) error {
	if nc.status == workflows.StatusStarting {
		return unavailable("the sandbox's container is still booting")
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	switch {
	case rest == "" && c.Request().Method == http.MethodGet:
		return c.JSON(http.StatusOK, []any{})
	case len(parts) == 1 || !processIDRE.MatchString(parts[0]):
		return apiErr(http.StatusNotFound, CodeProcessNotFound, "no such process: the sandbox has no running container")
	default:
		return apiErr(http.StatusConflict, "STALE_PROCESS_HANDLE", "this process belonged to a container that no longer runs; start the command again")
	}
}

func bufferBody(req *http.Request) (body io.Reader, replayable bool, err error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, true, nil
	}
	buf, err := io.ReadAll(io.LimitReader(req.Body, maxRetryBody+1))
	if err != nil {
		return nil, false, badRequest("could not read the request body")
	}
	if len(buf) <= maxRetryBody {
		return bytes.NewReader(buf), true, nil
	}
	return io.MultiReader(bytes.NewReader(buf), req.Body), false, nil
}

func (s *Server) forward(ctx context.Context, t target, in *http.Request, path string, body io.Reader) (*http.Response, error) {
	if r, ok := body.(*bytes.Reader); ok {
		_, _ = r.Seek(0, io.SeekStart)
	}
	u := "http://" + t.addr + path
	if in.URL.RawQuery != "" {
		u += "?" + in.URL.RawQuery
	}
	out, err := http.NewRequestWithContext(ctx, in.Method, u, body)
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Content-Type", "Accept", "Last-Event-ID"} {
		if v := in.Header.Get(h); v != "" {
			out.Header.Set(h, v)
		}
	}
	out.Header.Set("Authorization", "Bearer "+auth.SupervisorToken(s.secret, t.bootID))
	return s.supervisors.Do(out)
}

// stream copies the supervisor's answer, flushing as bytes arrive so that
// SSE log follows are live.
func stream(c echo.Context, resp *http.Response) error {
	defer resp.Body.Close()
	w := c.Response()
	for _, h := range []string{"Content-Type", "Cache-Control", "Retry-After", "X-Accel-Buffering"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil
			}
			w.Flush()
		}
		if err != nil {
			return nil
		}
	}
}
