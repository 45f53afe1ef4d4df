package tracing

import (
	"context"
	"net/http"
	"testing"
)

// Without an OTLP endpoint nothing is installed: no interceptor, the same
// transport, a no-op shutdown; tracing off costs nothing.
func TestOffInstallsNothing(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	stop, err := Setup(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if Enabled() {
		t.Fatal("tracing on without an endpoint")
	}
	if is, err := TemporalInterceptors(); err != nil || is != nil {
		t.Fatalf("interceptors %v, %v", is, err)
	}
	rt := &http.Transport{}
	if Transport(rt, "supervisor", true) != rt {
		t.Fatal("the transport was wrapped")
	}
	c := &http.Client{Transport: rt}
	if Client(c, "s3", false).Transport != rt {
		t.Fatal("the client's transport was wrapped")
	}
	if Tracer() == nil {
		t.Fatal("no tracer")
	}
}
