package supervisor

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/internal/child"
)

// Environment variables read once at start and then removed from the
// supervisor's environment, so that child processes inherit none of them.
// The token is never one of them: a process's initial environment stays
// readable in /proc/1/environ whatever os.Unsetenv does, so the token comes
// in a file (see TokenFile).
const (
	EnvBootID = supervisorapi.EnvBootID
	// EnvToken is refused: a token in the environment would be readable by
	// every process of the sandbox.
	EnvToken = "BERTH_SUPERVISOR_TOKEN"
	// EnvTokenFile overrides DefaultTokenFile (tests that run the supervisor
	// outside a container).
	EnvTokenFile     = "BERTH_SUPERVISOR_TOKEN_FILE"
	EnvListen        = supervisorapi.EnvListen
	EnvLogBufferSize = "BERTH_LOG_BUFFER_BYTES"
	// EnvLogTotalSize caps the output kept for all processes together;
	// default an eighth of the container's memory limit.
	EnvLogTotalSize = "BERTH_LOG_TOTAL_BYTES"
	EnvMaxExited    = "BERTH_MAX_EXITED"
	// EnvDefaultCwd overrides the default working directory (/workspace);
	// mostly for running the supervisor outside a container in tests.
	EnvDefaultCwd = supervisorapi.EnvDefaultCwd
	// EnvKillGrace is the delay between SIGTERM and SIGKILL, both for an exec
	// timeout and for the supervisor's own shutdown. Go duration syntax.
	EnvKillGrace = "BERTH_KILL_GRACE"
	// EnvRunAs is the image's USER: whom commands, terminals and services
	// run as, and who owns /workspace and the files the API writes. The
	// supervisor itself runs as root so that `user: root` stays possible.
	EnvRunAs = supervisorapi.EnvRunAs
	// EnvDiskBytes is the size of the sandbox's own disk mounted at
	// /workspace; unset when /workspace is a plain volume of the host's
	// file system, whose figures say nothing about the sandbox.
	EnvDiskBytes = supervisorapi.EnvDiskBytes
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
	RunAs          child.Identity // EnvRunAs, resolved in the container
	Limits         Limits         // per-sandbox limits (limits.go)
	DiskBytes      int64          // EnvDiskBytes; 0: no disk of its own
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
	// DefaultTokenFile is where the worker puts the token (in a directory
	// of its own, owned by the container's user) before the container
	// starts; the supervisor reads and removes it before anything else runs.
	DefaultTokenFile = supervisorapi.TokenFile
)

// ConfigFromEnv reads the configuration, unsets every variable it read and
// takes the token out of its file. A missing token is an error: an
// unauthenticated supervisor would let anything on the network run
// commands in the sandbox.
func ConfigFromEnv() (Config, error) {
	take := func(k string) string {
		v := os.Getenv(k)
		os.Unsetenv(k)
		return v
	}
	tokenInEnv := take(EnvToken) != ""
	tokenFile := take(EnvTokenFile)
	if tokenFile == "" {
		tokenFile = DefaultTokenFile
	}
	c := Config{
		BootID:         take(EnvBootID),
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
	if v := take(EnvDiskBytes); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Sprintf("%s=%q: want an integer >= 0", EnvDiskBytes, v))
		}
		c.DiskBytes = n
	}
	c.RunAs = child.Root
	if v := take(EnvRunAs); v != "" {
		id, err := child.ResolveUser(v)
		if err != nil {
			errs = append(errs, "the image's USER: "+err.Error())
		}
		c.RunAs = id
	}
	var limitErrs []string
	c.Limits, limitErrs = limitsFromEnv(take)
	errs = append(errs, limitErrs...)
	var err error
	switch c.Token, err = takeToken(tokenFile); {
	case tokenInEnv:
		errs = append(errs, EnvToken+" must not be set: the environment of PID 1 is readable in the sandbox; put the token in "+tokenFile)
	case err != nil:
		errs = append(errs, "the supervisor token is required: "+err.Error())
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

// takeToken reads the token file and removes it (and the default file's
// directory, when it can), so no process started later can read it. A token
// that cannot be removed is refused: it would stay readable.
func takeToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if err := os.Remove(path); err != nil {
		return "", fmt.Errorf("remove %s: %w", path, err)
	}
	if path == DefaultTokenFile {
		_ = os.Remove(filepath.Dir(path)) // root owns /: fails harmlessly for other users
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return token, nil
}
