package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/berthdev/berth/gateway"
)

// Limits read from the environment by the gateway and the worker.

// gatewayHTTPLimits reads BERTH_HTTP_READ_HEADER_TIMEOUT,
// BERTH_HTTP_IDLE_TIMEOUT (Go durations) and BERTH_HTTP_MAX_HEADER_BYTES;
// unset ones keep the gateway's defaults.
func gatewayHTTPLimits() (gateway.HTTPLimits, error) {
	var l gateway.HTTPLimits
	for _, d := range []struct {
		env string
		dst *time.Duration
	}{{"BERTH_HTTP_READ_HEADER_TIMEOUT", &l.ReadHeaderTimeout}, {"BERTH_HTTP_IDLE_TIMEOUT", &l.IdleTimeout}} {
		if v := os.Getenv(d.env); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil || t <= 0 {
				return l, fmt.Errorf("%s=%q: want a duration such as 10s", d.env, v)
			}
			*d.dst = t
		}
	}
	if v := os.Getenv("BERTH_HTTP_MAX_HEADER_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 {
			return l, fmt.Errorf("BERTH_HTTP_MAX_HEADER_BYTES=%q: want an integer >= 1024", v)
		}
		l.MaxHeaderBytes = n
	}
	return l, nil
}

// supervisorLimitVars are the per-sandbox limits an operator sets on the
// worker; it hands them to every sandbox's supervisor, which enforces them.
var supervisorLimitVars = []string{"BERTH_MAX_PROCESSES", "BERTH_MAX_TERMINALS", "BERTH_MAX_LOG_FOLLOWERS"}

// supervisorEnv checks the limits set in the worker's environment (a bad
// value would stop every supervisor from starting) and returns them as
// KEY=VALUE for the containers.
func supervisorEnv() ([]string, error) {
	var out []string
	for _, k := range supervisorLimitVars {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want an integer >= 1", k, v)
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}
