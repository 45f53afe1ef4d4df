package process

import (
	"bufio"
	"net/http"
	"strconv"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// One-round-trip commands: POST /v1/processes with "wait": true answers
// once the process exited, with what GET .../output would return plus the
// process's id, pid and times (the ProcessResult schema).

// checkWait refuses output options without wait, and wait with a stdin
// pipe (nobody could write to it before the answer).
func checkWait(req *api.ExecRequest, pipe bool) error {
	if !req.Wait {
		if req.MaxBytes != 0 || req.Encoding != "" {
			return httpapi.BadRequest(`maxBytes and encoding shape the output of "wait": true; without it, read the output with GET .../processes/{id}/output`)
		}
		return nil
	}
	if req.MaxBytes < 0 {
		return httpapi.BadRequest("maxBytes must be a positive number of bytes per stream, got " + strconv.Itoa(req.MaxBytes))
	}
	if err := validEncoding(req.Encoding); err != nil {
		return err
	}
	if pipe {
		return httpapi.BadRequest(`stdin "pipe" cannot be combined with "wait": true; start the process without wait to write to its stdin`)
	}
	return nil
}

// headerDelay is how long a waited process may run before the headers
// (with its id) are sent ahead of the result, so the caller can signal it.
// A short command ends well within it and is answered in one write.
const headerDelay = 20 * time.Millisecond

// answerWhenDone waits for p to exit and writes its result. The process
// outlives a caller that leaves: it is in the process table like any other.
func (s *Service) answerWhenDone(w http.ResponseWriter, r *http.Request, p *process, enc string, maxBytes int) {
	h := w.Header()
	h.Set(api.ProcessHeader, p.id)
	h.Set("Content-Type", "application/json")
	sent := false
	select {
	case <-p.done:
	default:
		t := time.NewTimer(headerDelay)
		select {
		case <-p.done:
			t.Stop()
		case <-t.C:
			w.WriteHeader(http.StatusOK)
			sent = true
			_ = http.NewResponseController(w).Flush()
			select {
			case <-p.done:
			case <-r.Context().Done():
				return
			}
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if !sent {
		w.WriteHeader(http.StatusOK)
	}
	v := p.view()
	writeOutput(w, p, enc, maxBytes, func(bw *bufio.Writer) {
		var b []byte
		b = append(b, `"id":"`...)
		b = append(b, p.id...)
		b = append(b, `","pid":`...)
		b = appendInt(b, p.pid)
		b = append(b, `,"startedAt":"`...)
		b = p.started.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","endedAt":"`...)
		b = v.EndedAt.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
		bw.Write(b)
	})
}
