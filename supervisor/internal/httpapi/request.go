package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"time"
)

// MaxJSONBody bounds request bodies other than stdin.
const MaxJSONBody = 1 << 20

// DecodeJSON reads a JSON object body into v, rejecting unknown fields (a
// typo like "timout" must not be silently ignored). An empty body is
// accepted when every field is optional.
func DecodeJSON(r *http.Request, v any, allowEmpty bool) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxJSONBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return NewError(http.StatusRequestEntityTooLarge, CodePayloadTooLarge,
				"request body larger than "+strconv.Itoa(MaxJSONBody)+" bytes")
		}
		return BadRequest("reading request body: " + err.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return BadRequest("request body is empty; expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return BadRequest("invalid JSON body: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return BadRequest("invalid JSON body: trailing data after the object")
	}
	return nil
}

// Duration is a JSON duration: a Go duration string ("30s", "1m30s",
// "250ms") or a number of seconds (fractions allowed), as for sleepAfter.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
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
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ParseDuration parses a Go duration string or a number of seconds.
func ParseDuration(s string) (time.Duration, error) {
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

// QueryDuration reads an optional duration parameter (0 when absent).
func QueryDuration(q url.Values, key string) (time.Duration, error) {
	v := q.Get(key)
	if v == "" {
		return 0, nil
	}
	d, err := ParseDuration(v)
	if err != nil {
		return 0, BadRequest(key + ": " + err.Error())
	}
	return d, nil
}

// QueryBool reads an optional boolean parameter (def when absent).
func QueryBool(q url.Values, key string, def bool) (bool, error) {
	v := q.Get(key)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, BadRequest(key + " must be true or false, got " + strconv.Quote(v))
	}
	return b, nil
}

// QueryInt reads an optional non-negative integer parameter (0 when
// absent).
func QueryInt(q url.Values, key string) (int, error) {
	v := q.Get(key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, BadRequest(key + " must be a non-negative integer, got " + strconv.Quote(v))
	}
	return n, nil
}
