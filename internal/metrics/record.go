package metrics

import (
	"strconv"
	"time"
)

// Outcome is OK for a nil error, Error otherwise.
func Outcome(err error) string {
	if err != nil {
		return Error
	}
	return OK
}

// Lifecycle records one lifecycle operation that began at start.
func Lifecycle(op, kind string, start time.Time, err error) {
	o := Outcome(err)
	LifecycleOps.WithLabelValues(op, kind, o).Inc()
	LifecycleDuration.WithLabelValues(op, kind, o).Observe(time.Since(start).Seconds())
}

// codes are the status codes as label values, made once: the request
// middleware must not format one per request.
var codes = func() (c [600]string) {
	for i := range c {
		c[i] = strconv.Itoa(i)
	}
	return
}()

// Code is status as a label value.
func Code(status int) string {
	if status >= 0 && status < len(codes) {
		return codes[status]
	}
	return "other"
}

// CodeClass is status's class ("2xx" …) as a label value.
func CodeClass(status int) string {
	switch {
	case status >= 500:
		return "5xx"
	case status >= 400:
		return "4xx"
	case status >= 300:
		return "3xx"
	case status >= 200:
		return "2xx"
	}
	return "1xx"
}

// Method is an HTTP method as a label value: the standard ones as they
// are, anything else "other". A client picks the method, and one label
// value per invented method would grow the series without bound.
func Method(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE":
		return m
	}
	return "other"
}
