package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Handler serves the registry in the Prometheus text format, or
// OpenMetrics when the scraper asks for it.
func Handler() http.Handler {
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Listen opens the metrics listener at addr. "off" (or empty) serves no
// metrics: it answers a nil listener and no error. When the address is the
// default and taken (another Berth on this machine has it) the caller gets
// the error and decides; see Serve.
func Listen(addr string) (net.Listener, error) {
	if addr == "" || addr == "off" {
		return nil, nil
	}
	return net.Listen("tcp", addr)
}

// Serve serves /metrics on ln until ctx ends. A nil ln serves nothing.
func Serve(ctx context.Context, ln net.Listener, log *zap.Logger) {
	if ln == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics listener stopped", zap.Error(err))
		}
	}()
}
