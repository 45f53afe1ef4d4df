package api

import (
	"fmt"
	"strings"
	"time"
)

// Service is a declared service of a sandbox (the Service schema): a
// command the supervisor starts on every boot, once the workspace is
// restored, and starts again when it exits according to Restart.
type Service struct {
	Name    string            `json:"name"`
	Argv    []string          `json:"argv"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Port    int               `json:"port,omitempty"`
	Restart string            `json:"restart"` // always | on-failure
}

// ServiceRequest is the body of PUT .../services/{svc}: a service without
// its name, which the path gives; an absent restart is "always".
type ServiceRequest struct {
	Argv    []string          `json:"argv"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Port    int               `json:"port,omitempty"`
	Restart string            `json:"restart,omitempty"`
}

// Restart rules of a service.
const (
	RestartAlways    = "always"
	RestartOnFailure = "on-failure"
)

// Bounds on services: they live in the workflow's state like the env.
const (
	MaxServices        = 16
	MaxServiceArgs     = 256
	MaxServiceArgBytes = 16 << 10 // the sum of the argv's lengths
	MaxServiceEnvVars  = 64
	MaxServiceEnvBytes = 16 << 10
	MaxServiceCwdBytes = 4096
)

// ServiceNameRule is the rule of service names (that of sandbox names).
const ServiceNameRule = SandboxNameRule

// ValidServiceName reports whether name follows ServiceNameRule.
func ValidServiceName(name string) bool { return ValidSandboxName(name) }

// Check validates a service as declared by a user; the message says what
// to change.
func (s Service) Check() error {
	if !ValidServiceName(s.Name) {
		return fmt.Errorf("service name %q is invalid: %s", s.Name, ServiceNameRule)
	}
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return fmt.Errorf(`argv must be a non-empty array whose first element names the executable; use ["sh", "-c", "..."] for shell syntax`)
	}
	if len(s.Argv) > MaxServiceArgs {
		return fmt.Errorf("argv has %d elements; at most %d", len(s.Argv), MaxServiceArgs)
	}
	n := 0
	for i, a := range s.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("argv[%d] contains a NUL byte", i)
		}
		n += len(a)
	}
	if n > MaxServiceArgBytes {
		return fmt.Errorf("argv totals %d bytes; at most %d", n, MaxServiceArgBytes)
	}
	if len(s.Cwd) > MaxServiceCwdBytes || strings.IndexByte(s.Cwd, 0) >= 0 || (s.Cwd != "" && !strings.HasPrefix(s.Cwd, "/")) {
		return fmt.Errorf("cwd must be an absolute path of at most %d bytes", MaxServiceCwdBytes)
	}
	switch s.Restart {
	case RestartAlways, RestartOnFailure:
	default:
		return fmt.Errorf("restart must be %q or %q, got %q", RestartAlways, RestartOnFailure, s.Restart)
	}
	if s.Port < 0 || s.Port > 65535 {
		return fmt.Errorf("port must be 1-65535, got %d", s.Port)
	}
	if len(s.Env) > MaxServiceEnvVars {
		return fmt.Errorf("env has %d variables; at most %d", len(s.Env), MaxServiceEnvVars)
	}
	n = 0
	for k, v := range s.Env {
		if k == "" || len(k) > 256 || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env name %q is invalid: 1-256 bytes, no '=' or NUL", k)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("env %s contains a NUL byte", k)
		}
		n += len(k) + len(v)
	}
	if n > MaxServiceEnvBytes {
		return fmt.Errorf("env totals %d bytes; at most %d", n, MaxServiceEnvBytes)
	}
	return nil
}

// ServiceList answers GET, PUT and DELETE .../services: the declared
// services and, while the sandbox runs, how its supervisor runs them.
type ServiceList struct {
	Services []ServiceStatus `json:"services"`
}

// ServiceStatus is a declared service and its runtime state (the
// ServiceStatus schema). The runtime fields are absent while the sandbox
// runs no container (or its supervisor did not answer in time).
type ServiceStatus struct {
	Service
	State     string `json:"state,omitempty"` // starting | running | backoff | exited | stopped
	ProcessID string `json:"processId,omitempty"`
	// PID is the running process's pid inside the sandbox.
	PID      int `json:"pid,omitempty"`
	Restarts int `json:"restarts,omitempty"`
	// LastExit is how the previous run ended; LastExitAt when.
	LastExit   *ExitStatus `json:"lastExit,omitempty"`
	LastExitAt *time.Time  `json:"lastExitAt,omitempty"`
	// LastError says why the latest start failed (e.g. no such executable).
	LastError string `json:"lastError,omitempty"`
}

// ServiceStatusList answers the supervisor's GET /v1/services.
type ServiceStatusList = ServiceList
