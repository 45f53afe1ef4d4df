package supervisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxJSONBody bounds request bodies other than stdin.
const maxJSONBody = 1 << 20

// decodeJSON reads a JSON object body into v, rejecting unknown fields (a
// typo like "timout" must not be silently ignored). An empty body is
// accepted when every field is optional.
func decodeJSON(r *http.Request, v any, allowEmpty bool) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxJSONBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return newError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge,
				"request body larger than "+strconv.Itoa(maxJSONBody)+" bytes")
		}
		return badRequest("reading request body: " + err.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return badRequest("request body is empty; expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("invalid JSON body: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return badRequest("invalid JSON body: trailing data after the object")
	}
	return nil
}

// duration is a JSON duration: a Go duration string ("30s", "1m30s",
// "250ms") or a number of seconds (fractions allowed), as for sleepAfter.
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		s = string(b)
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f > float64(100*365*24*time.Hour/time.Second) {
			return 0, errors.New("duration " + strconv.Quote(s) + " is too large")
		}
		d = time.Duration(f * float64(time.Second))
	} else {
		d, err = time.ParseDuration(s)
		if err != nil {
			return 0, errors.New("invalid duration " + strconv.Quote(s) + `: use "30s", "1m30s" or a number of seconds`)
		}
	}
	if d < 0 {
		return 0, errors.New("duration " + strconv.Quote(s) + " is negative")
	}
	return d, nil
}

func queryDuration(q url.Values, key string) (time.Duration, error) {
	v := q.Get(key)
	if v == "" {
		return 0, nil
	}
	d, err := parseDuration(v)
	if err != nil {
		return 0, badRequest(key + ": " + err.Error())
	}
	return d, nil
}

func queryBool(q url.Values, key string, def bool) (bool, error) {
	v := q.Get(key)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest(key + " must be true or false, got " + strconv.Quote(v))
	}
	return b, nil
}

func queryInt(q url.Values, key string) (int, error) {
	v := q.Get(key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest(key + " must be a non-negative integer, got " + strconv.Quote(v))
	}
	return n, nil
}

// signalSpec is a signal given as a number (1–64) or a name ("TERM",
// "SIGKILL", case-insensitive).
type signalSpec syscall.Signal

func (s *signalSpec) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		sig, ok := signalByName(name)
		if !ok {
			if n, err := strconv.Atoi(name); err == nil {
				return s.set(n)
			}
			return errors.New("unknown signal " + strconv.Quote(name))
		}
		*s = signalSpec(sig)
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return errors.New("signal must be an integer 1-64 or a name like \"SIGTERM\"")
	}
	return s.set(n)
}

func (s *signalSpec) set(n int) error {
	if n < 1 || n > 64 {
		return errors.New("signal " + strconv.Itoa(n) + " out of range 1-64")
	}
	*s = signalSpec(n)
	return nil
}

func signalByName(name string) (syscall.Signal, bool) {
	switch strings.TrimPrefix(strings.ToUpper(name), "SIG") {
	case "HUP":
		return syscall.SIGHUP, true
	case "INT":
		return syscall.SIGINT, true
	case "QUIT":
		return syscall.SIGQUIT, true
	case "ABRT":
		return syscall.SIGABRT, true
	case "KILL":
		return syscall.SIGKILL, true
	case "USR1":
		return syscall.SIGUSR1, true
	case "USR2":
		return syscall.SIGUSR2, true
	case "PIPE":
		return syscall.SIGPIPE, true
	case "ALRM":
		return syscall.SIGALRM, true
	case "TERM":
		return syscall.SIGTERM, true
	case "CONT":
		return syscall.SIGCONT, true
	case "STOP":
		return syscall.SIGSTOP, true
	case "TSTP":
		return syscall.SIGTSTP, true
	case "WINCH":
		return syscall.SIGWINCH, true
	}
	return 0, false
}
