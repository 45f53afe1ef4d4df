package config

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Preview is how the gateway serves preview URLs.
type Preview struct {
	// Domain (BERTH_PREVIEW_DOMAIN, default localhost) is the suffix of
	// preview host names: {port}-{name}.{Domain}.
	Domain string
	// Wait (BERTH_PREVIEW_WAIT, default 30s) bounds how long a preview
	// request waits for its sandbox to wake and its port to accept; then
	// it is answered 503 with Retry-After.
	Wait time.Duration
	// problem is why the environment's value was refused (see Check).
	problem string
}

// Defaults of Preview.
const (
	DefaultPreviewDomain = "localhost"
	DefaultPreviewWait   = 30 * time.Second
	// MaxPreviewWait bounds BERTH_PREVIEW_WAIT: a request held longer is
	// one a browser or a proxy in front has long given up on.
	MaxPreviewWait = 10 * time.Minute
)

// WithDefaults fills the zero fields.
func (p Preview) WithDefaults() Preview {
	if p.Domain == "" {
		p.Domain = DefaultPreviewDomain
	}
	if p.Wait <= 0 {
		p.Wait = DefaultPreviewWait
	}
	return p
}

// Check reports a preview setting the environment gave that is unusable,
// so that the gateway refuses to start instead of silently using the
// default.
func (p Preview) Check() error {
	if p.problem != "" {
		return fmt.Errorf("%s", p.problem)
	}
	return nil
}

func previewFromEnv() Preview {
	var p Preview
	p.Domain = strings.Trim(strings.ToLower(os.Getenv("BERTH_PREVIEW_DOMAIN")), ".")
	if p.Domain != "" && !validDomain(p.Domain) {
		p.problem = fmt.Sprintf("BERTH_PREVIEW_DOMAIN=%q: want a DNS name such as preview.example.com", p.Domain)
	}
	if v := os.Getenv("BERTH_PREVIEW_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > MaxPreviewWait {
			p.problem = fmt.Sprintf("BERTH_PREVIEW_WAIT=%q: want a positive duration up to %v, such as 30s", v, MaxPreviewWait)
		} else {
			p.Wait = d
		}
	}
	return p.WithDefaults()
}

// validDomain accepts DNS labels of letters, digits and '-' joined by dots.
func validDomain(d string) bool {
	if len(d) > 200 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}
