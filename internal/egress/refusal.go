package egress

import (
	"net/netip"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
)

// Refusal is one refused lookup, connection or request, for the operator:
// the worker turns these into sandbox events. It never holds a secret value.
type Refusal struct {
	Sandbox     string         // empty when the source is unknown
	Boot        string         // the sandbox's boot, for the log line
	Source      netip.Addr     // the sandbox's address
	Destination netip.AddrPort // zero for DNS
	Host        string         // SNI, Host header or DNS name, if any
	Secret      string         // the secret's name, for placeholder refusals
	Kind        string         // "dns", "connect", "http"
	Reason      string
}

type reporter struct {
	log   *zap.Logger
	on    func(Refusal)
	limit *logLimiter // nil logs every refusal
}

func (r reporter) refuse(f Refusal) {
	reason := f.Kind // dns, connect, http: bounded, unlike f.Reason
	if f.Secret != "" {
		reason = "secret"
	}
	metrics.EgressRefusals.WithLabelValues(reason).Inc()
	if r.log != nil {
		logged, suppressed := true, 0
		if r.limit != nil {
			logged, suppressed = r.limit.allow(f.Sandbox, time.Now())
		}
		if logged {
			r.logRefusal(f, suppressed)
		}
	}
	if r.on != nil {
		r.on(f)
	}
}

func (r reporter) logRefusal(f Refusal, suppressed int) {
	fields := []zap.Field{sandboxlog.Of(f.Sandbox, f.Boot), zap.Stringer("source", f.Source),
		zap.String("kind", f.Kind), zap.String("reason", f.Reason)}
	if f.Destination.IsValid() {
		fields = append(fields, zap.Stringer("destination", f.Destination))
	}
	if f.Host != "" {
		fields = append(fields, zap.String("host", f.Host))
	}
	if f.Secret != "" {
		fields = append(fields, zap.String("secret", f.Secret))
	}
	if suppressed > 0 {
		fields = append(fields, zap.Int("notLoggedBefore", suppressed))
	}
	r.log.Warn("egress refused", fields...)
}
