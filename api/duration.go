package api

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
)

// maxSeconds bounds a duration given in seconds, far below where a float
// would overflow time.Duration.
const maxSeconds = float64(100 * 365 * 24 * time.Hour / time.Second)

// ParseDuration parses the one duration syntax of the API, in bodies, query
// parameters and CLI flags alike: a Go duration string ("30s", "1m30s",
// "250ms") or a number of seconds (fractions allowed). Negative durations
// are refused.
func ParseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f > maxSeconds {
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

// Duration is a duration in a JSON body: a string ParseDuration accepts or
// a JSON number of seconds. null leaves it unchanged; a *Duration field
// tells "absent" from "0".
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the Go duration string ("1m30s"), the unambiguous
// form.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}
