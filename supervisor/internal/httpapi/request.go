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

	"github.com/berthdev/berth/api"

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
			return NewError(http.StatusRequestEntityTooLarge, api.CodePayloadTooLarge,
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

// QueryDuration reads an optional duration parameter (0 when absent).
func QueryDuration(q url.Values, key string) (time.Duration, error) {
	v := q.Get(key)
	if v == "" {
		return 0, nil
	}
	d, err := api.ParseDuration(v)
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
