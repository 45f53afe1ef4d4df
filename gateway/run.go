package gateway

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/egress/secrets"
	"github.com/berthdev/berth/internal/tokens"
)

// Run assembles a gateway from cfg (instance types, HTTP limits from the
// environment) and the backup store the caller opened, and serves it on ln
// until ctx ends. `berth gateway` and `berth dev` both call it. The store
// is passed in (blobstore.OpenBackups) so the gateway does not link the S3
// SDK.
func Run(ctx context.Context, cfg config.Config, c client.Client, backups blob.Store, log *zap.Logger, ln net.Listener) error {
	types, err := config.LoadInstanceTypes(cfg.InstanceTypesFile)
	if err != nil {
		return err
	}
	if err := cfg.Preview.Check(); err != nil {
		return err
	}
	httpLimits, err := httpLimitsFromEnv()
	if err != nil {
		return err
	}
	var store SecretStore
	if keys, err := secrets.StoreKeys(cfg.SecretsKey, cfg.SecretsRetiredKeys, cfg.Secret); err != nil {
		log.Warn("secret store disabled", zap.Error(err))
	} else if store, err = secrets.OpenBlobStore(backups, keys); err != nil {
		return err
	}
	cacheTTL, err := tokenCacheFromEnv()
	if err != nil {
		return err
	}
	var toks *tokens.Store
	if backups != nil {
		toks = tokens.New(backups, cacheTTL)
	}
	gw := New(Options{
		Temporal: c, Namespace: cfg.Namespace, Token: cfg.Token, Secret: cfg.Secret, Backups: backups,
		InstanceTypes: types, Log: log.Named("gateway"), ContinueAsNewAfter: continueAsNewAfter(),
		HTTP: httpLimits, Secrets: store, Preview: cfg.Preview, Images: cfg.Images, DozeAfter: cfg.DozeAfter,
		Tokens: toks, DataDir: cfg.DataDir, TemporalUI: temporalUIFromEnv(),
	})
	return gw.Serve(ctx, ln)
}

// temporalUIFromEnv is BERTH_TEMPORAL_UI, the Temporal UI the console
// links each sandbox's workflow to; default the dev server's
// (http://127.0.0.1:8233), "off" for none.
func temporalUIFromEnv() string {
	switch v := os.Getenv("BERTH_TEMPORAL_UI"); v {
	case "":
		return "http://127.0.0.1:8233"
	case "off":
		return ""
	default:
		return v
	}
}

// tokenCacheFromEnv reads BERTH_TOKEN_CACHE: how long this gateway trusts
// what it read of a scoped token, the bound on how late it sees another
// gateway's revocation (default tokens.DefaultCacheTTL; "0" reads the
// store on every request).
func tokenCacheFromEnv() (time.Duration, error) {
	v := os.Getenv("BERTH_TOKEN_CACHE")
	if v == "" {
		return tokens.DefaultCacheTTL, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > time.Minute {
		return 0, fmt.Errorf("BERTH_TOKEN_CACHE=%q: want a duration from 0s to 1m", v)
	}
	if d == 0 {
		d = -1 // tokens.New: no cache
	}
	return d, nil
}

// httpLimitsFromEnv reads BERTH_HTTP_READ_HEADER_TIMEOUT,
// BERTH_HTTP_IDLE_TIMEOUT, BERTH_HTTP_BODY_TIMEOUT (Go durations),
// BERTH_HTTP_MAX_HEADER_BYTES, BERTH_HTTP_MIN_BODY_RATE (bytes a second)
// and BERTH_HTTP_MAX_CONNS_PER_ADDR; unset ones keep the defaults.
func httpLimitsFromEnv() (HTTPLimits, error) {
	var l HTTPLimits
	for _, d := range []struct {
		env string
		dst *time.Duration
	}{{"BERTH_HTTP_READ_HEADER_TIMEOUT", &l.ReadHeaderTimeout}, {"BERTH_HTTP_IDLE_TIMEOUT", &l.IdleTimeout},
		{"BERTH_HTTP_BODY_TIMEOUT", &l.BodyTimeout}} {
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
	for _, n := range []struct {
		env string
		dst *int
	}{{"BERTH_HTTP_MIN_BODY_RATE", &l.MinBodyRate}, {"BERTH_HTTP_MAX_CONNS_PER_ADDR", &l.MaxConnsPerAddr}} {
		if v := os.Getenv(n.env); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 1 {
				return l, fmt.Errorf("%s=%q: want a positive integer", n.env, v)
			}
			*n.dst = i
		}
	}
	return l, nil
}

// continueAsNewAfter lets tests force continue-as-new with a low threshold
// (BERTH_CONTINUE_AS_NEW_AFTER).
func continueAsNewAfter() int {
	var n int
	fmt.Sscanf(os.Getenv("BERTH_CONTINUE_AS_NEW_AFTER"), "%d", &n)
	return n
}
