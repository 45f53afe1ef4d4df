package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is the settings of one Berth process (dev, worker or gateway).
type Config struct {
	DataDir string // BERTH_DATA_DIR, default .berth
	Listen  string // BERTH_LISTEN, default 127.0.0.1:8080
	Token   string // BERTH_TOKEN: gateway bearer token
	Secret  string // BERTH_SECRET: derives per-boot supervisor tokens
	// SecretsKey (BERTH_SECRETS_KEY) seals the egress secret store;
	// SecretsRetiredKeys (BERTH_SECRETS_RETIRED_KEYS, comma separated)
	// only open what earlier keys sealed, until `berth secrets rekey`.
	SecretsKey         string
	SecretsRetiredKeys string
	DefaultImage       string        // BERTH_DEFAULT_IMAGE
	TemporalAddress    string        // TEMPORAL_ADDRESS, default 127.0.0.1:7233
	Namespace          string        // TEMPORAL_NAMESPACE, default "default"
	HostID             string        // BERTH_HOST_ID, default the hostname
	Supervisor         string        // BERTH_SUPERVISOR: path of the supervisor binary
	TemporalCLI        string        // BERTH_TEMPORAL_CLI
	BackupURL          string        // BERTH_BACKUP_URL, default file://<data>/backups
	InstanceTypesFile  string        // BERTH_INSTANCE_TYPES: JSON list of custom types
	BackupTTL          time.Duration // BERTH_BACKUP_TTL, default 168h
	BackupKeep         int           // BERTH_BACKUP_KEEP, default 3
	// NoDiskLimits (BERTH_DISK_LIMITS=off) gives sandboxes plain Docker
	// volumes on hosts that cannot loop-mount: then a sandbox can fill the
	// host's disk.
	NoDiskLimits bool
	// NoNetGuard (BERTH_NETGUARD=off) boots sandboxes without the network
	// guard (internal/netguard), for unprivileged dev setups: then a
	// sandbox reaches this host, its private networks and metadata
	// addresses.
	NoNetGuard bool
	// NoEgress (BERTH_EGRESS=off, or the guard off) runs no egress proxy:
	// sandboxes reach the public internet directly (the guard still keeps
	// them off private networks), policies and secrets are not enforced.
	NoEgress bool
	// EgressDNS (BERTH_EGRESS_DNS, "host:port") is the upstream of the
	// policy resolver; "" means the first nameserver of /etc/resolv.conf.
	EgressDNS string
	// EgressExtraCA (BERTH_EGRESS_EXTRA_CA) is a PEM file of roots the
	// egress proxy trusts upstream besides the system's.
	EgressExtraCA string
	// TemporalTLS is how this process authenticates to Temporal
	// (TEMPORAL_TLS_*, TEMPORAL_API_KEY); empty means plaintext.
	TemporalTLS TemporalTLS
	// HostAddr (BERTH_HOST_ADDR, "host:port") is where a worker's host
	// proxy listens and what it announces (hostaddr.go).
	HostAddr string
	// MetricsListen (BERTH_METRICS_LISTEN, "host:port" or "off") is where
	// /metrics is served; empty takes the role's loopback default
	// (metrics.go).
	MetricsListen string
	// Preview is how the gateway serves preview URLs (BERTH_PREVIEW_*).
	Preview Preview
	// WarmPool (BERTH_WARM_POOL) sizes a worker's warm pools; see
	// ParseWarmPool.
	WarmPool string
	// DropWarmOnExit removes the unclaimed warm containers when the worker
	// stops (`berth dev` leaves nothing running); a `berth worker` keeps
	// them for the next one to adopt.
	DropWarmOnExit bool
	// Images (BERTH_IMAGES, comma-separated patterns like
	// "ghcr.io/acme/*,python:3.*") are the image refs a create may name;
	// empty allows any (see AllowsImage).
	Images []string
	// RegistryAuth (BERTH_REGISTRY_AUTH) is a Docker config.json whose
	// "auths" a worker presents to registries when it resolves and pulls.
	RegistryAuth string
	// DozeAfter (BERTH_DOZE_AFTER, a duration; 0 or off: never) is the
	// dozeAfter of sandboxes created without one. DozeAfterSet says the
	// environment named it: `berth dev` defaults it to DevDozeAfter.
	DozeAfter    time.Duration
	DozeAfterSet bool
}

// DevDozeAfter is `berth dev`'s dozeAfter for sandboxes created without one.
const DevDozeAfter = 30 * time.Second

// DefaultImage is the Debian-based image `task image` builds.
const DefaultImage = "berth/sandbox:latest"

// FromEnv reads the environment; flags may override fields afterwards.
func FromEnv() Config {
	host, _ := os.Hostname()
	c := Config{
		DataDir:            getenv("BERTH_DATA_DIR", ".berth"),
		Listen:             getenv("BERTH_LISTEN", "127.0.0.1:8080"),
		Token:              os.Getenv("BERTH_TOKEN"),
		Secret:             os.Getenv("BERTH_SECRET"),
		DefaultImage:       getenv("BERTH_DEFAULT_IMAGE", DefaultImage),
		TemporalAddress:    getenv("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		Namespace:          getenv("TEMPORAL_NAMESPACE", "default"),
		HostID:             getenv("BERTH_HOST_ID", sanitizeHost(host)),
		Supervisor:         os.Getenv("BERTH_SUPERVISOR"),
		SecretsKey:         os.Getenv("BERTH_SECRETS_KEY"),
		SecretsRetiredKeys: os.Getenv("BERTH_SECRETS_RETIRED_KEYS"),
		TemporalCLI:        os.Getenv("BERTH_TEMPORAL_CLI"),
		BackupURL:          os.Getenv("BERTH_BACKUP_URL"),
		InstanceTypesFile:  os.Getenv("BERTH_INSTANCE_TYPES"),
		BackupTTL:          7 * 24 * time.Hour,
		BackupKeep:         3,
		NoDiskLimits:       os.Getenv("BERTH_DISK_LIMITS") == "off",
		NoNetGuard:         os.Getenv("BERTH_NETGUARD") == "off",
		NoEgress:           os.Getenv("BERTH_EGRESS") == "off" || os.Getenv("BERTH_NETGUARD") == "off",
		EgressDNS:          os.Getenv("BERTH_EGRESS_DNS"),
		EgressExtraCA:      os.Getenv("BERTH_EGRESS_EXTRA_CA"),
		TemporalTLS:        temporalTLSFromEnv(),
		HostAddr:           os.Getenv("BERTH_HOST_ADDR"),
		MetricsListen:      os.Getenv("BERTH_METRICS_LISTEN"),
		Preview:            previewFromEnv(),
		WarmPool:           os.Getenv("BERTH_WARM_POOL"),
		Images:             splitList(os.Getenv("BERTH_IMAGES")),
		RegistryAuth:       os.Getenv("BERTH_REGISTRY_AUTH"),
	}
	if d, err := time.ParseDuration(os.Getenv("BERTH_BACKUP_TTL")); err == nil && d > 0 {
		c.BackupTTL = d
	}
	if n, err := strconv.Atoi(os.Getenv("BERTH_BACKUP_KEEP")); err == nil && n > 0 {
		c.BackupKeep = n
	}
	if v, ok := os.LookupEnv("BERTH_DOZE_AFTER"); ok {
		c.DozeAfterSet = true
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			c.DozeAfter = d
		}
	}
	return c
}

func getenv(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// sanitizeHost keeps a host id usable in a task queue name and a label.
func sanitizeHost(h string) string {
	h = strings.ToLower(h)
	var b strings.Builder
	for _, r := range h {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "local"
	}
	return b.String()
}

// EnsureSecrets fills Token and Secret from the data dir, generating them on
// first use (dev only: production sets BERTH_TOKEN and BERTH_SECRET).
func (c *Config) EnsureSecrets() error {
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return err
	}
	var err error
	if c.Token == "" {
		if c.Token, err = loadOrCreate(filepath.Join(c.DataDir, "token")); err != nil {
			return err
		}
	}
	if c.Secret == "" {
		if c.Secret, err = loadOrCreate(filepath.Join(c.DataDir, "secret")); err != nil {
			return err
		}
	}
	if c.SecretsKey == "" {
		if c.SecretsKey, err = loadOrCreate(filepath.Join(c.DataDir, "secrets-key")); err != nil {
			return err
		}
	}
	return nil
}

func loadOrCreate(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		if s := strings.TrimSpace(string(b)); s != "" {
			return s, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	s := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return s, nil
}

// RequireSecrets fails fast when a production process lacks its secrets.
func (c *Config) RequireSecrets(needToken bool) error {
	if c.Secret == "" {
		return errors.New("BERTH_SECRET is required (the same value on every worker and gateway)")
	}
	if needToken && c.Token == "" {
		return errors.New("BERTH_TOKEN is required: the gateway never runs without auth")
	}
	return nil
}

// BackupStoreURL is the configured backup store, defaulting to the data dir.
func (c *Config) BackupStoreURL() (string, error) {
	if c.BackupURL != "" {
		return c.BackupURL, nil
	}
	abs, err := filepath.Abs(filepath.Join(c.DataDir, "backups"))
	if err != nil {
		return "", err
	}
	return "file://" + abs, nil
}
