package supervisor

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables read once at start and then removed from the
// supervisor's environment, so that no child process ever sees the token.
const (
	EnvBootID        = "BERTH_BOOT_ID"
	EnvToken         = "BERTH_SUPERVISOR_TOKEN"
	EnvListen        = "BERTH_SUPERVISOR_LISTEN"
	EnvLogBufferSize = "BERTH_LOG_BUFFER_BYTES"
	// EnvLogTotalSize caps the output kept for all processes together;
	// default an eighth of the container's memory limit.
	EnvLogTotalSize = "BERTH_LOG_TOTAL_BYTES"
	EnvMaxExited    = "BERTH_MAX_EXITED"
	// EnvDefaultCwd overrides the default working directory (/workspace);
	// mostly for running the supervisor outside a container in tests.
	EnvDefaultCwd = "BERTH_DEFAULT_CWD"
	// EnvKillGrace is the delay between SIGTERM and SIGKILL, both for an exec
	// timeout and for the supervisor's own shutdown. Go duration syntax.
	EnvKillGrace = "BERTH_KILL_GRACE"
)

// Config is the supervisor's whole configuration.
type Config struct {
	BootID         string
	Token          string
	Listen         string
	LogBufferBytes int
	LogTotalBytes  int64 // 0: derived from the memory limit
	MaxExited      int
	DefaultCwd     string
	KillGrace      time.Duration
	Limits         Limits // per-sandbox limits (limits.go)
	// BaseEnv is the image environment (the supervisor's own environment
	// minus the variables above): the lowest layer of every spawn's env.
	BaseEnv []string
}

// Defaults.
const (
	DefaultListen         = ":7070"
	DefaultLogBufferBytes = 8 << 20
	DefaultMaxExited      = 64
	DefaultCwd            = "/workspace"
	DefaultKillGrace      = 2 * time.Second
)

// ConfigFromEnv reads the configuration and unsets every variable it read.
// A missing token is an error: an unauthenticated supervisor would let
// anything on the network run commands in the sandbox.
func ConfigFromEnv() (Config, error) {
	take := func(k string) string {
		v := os.Getenv(k)
		os.Unsetenv(k)
		return v
	}
	c := Config{
		BootID:         take(EnvBootID),
		Token:          take(EnvToken),
		Listen:         take(EnvListen),
		LogBufferBytes: DefaultLogBufferBytes,
		MaxExited:      DefaultMaxExited,
		DefaultCwd:     take(EnvDefaultCwd),
		KillGrace:      DefaultKillGrace,
	}
	var errs []string
	if v := take(EnvLogBufferSize); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1024 {
			errs = append(errs, fmt.Sprintf("%s=%q: want an integer >= 1024", EnvLogBufferSize, v))
		}
		c.LogBufferBytes = n
	}
	if v := take(EnvLogTotalSize); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 {
			errs = append(errs, fmt.Sprintf("%s=%q: want an integer >= 1024", EnvLogTotalSize, v))
		}
		c.LogTotalBytes = n
	}
	if v := take(EnvMaxExited); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Sprintf("%s=%q: want an integer >= 0", EnvMaxExited, v))
		}
		c.MaxExited = n
	}
	if v := take(EnvKillGrace); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Sprintf("%s=%q: want a duration like 2s", EnvKillGrace, v))
		}
		c.KillGrace = d
	}
	var limitErrs []string
	c.Limits, limitErrs = limitsFromEnv(take)
	errs = append(errs, limitErrs...)
	if c.Token == "" {
		errs = append(errs, EnvToken+" is required")
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.DefaultCwd == "" {
		c.DefaultCwd = DefaultCwd
	}
	if c.BootID == "" {
		// Still unique per boot, so ids of an earlier run stay stale.
		var b [8]byte
		rand.Read(b[:])
		c.BootID = "local-" + hex.EncodeToString(b[:])
	}
	c.BaseEnv = os.Environ()
	if len(errs) > 0 {
		return c, fmt.Errorf("berth-supervisor: %s", strings.Join(errs, "; "))
	}
	return c, nil
}
