package metrics

import (
	"sync"

	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

var (
	temporalOnce    sync.Once
	temporalHandler client.MetricsHandler
)

// Temporal is the Temporal SDK's own metrics handler (request latencies,
// poll and task counters, schedule-to-start, sticky cache …), through the
// SDK's OpenTelemetry handler and exported into Registry by OpenTelemetry's
// Prometheus exporter: the SDK names them (temporal_*), nothing here does.
// One per process: `berth dev`'s worker and gateway share their client.
func Temporal() client.MetricsHandler {
	temporalOnce.Do(func() {
		exp, err := otelprom.New(otelprom.WithRegisterer(Registry), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
		if err != nil {
			temporalHandler = client.MetricsNopHandler
			return
		}
		// The SDK's timers are in seconds: OpenTelemetry's default
		// buckets (0, 5, 10, 25 … 10000) are made for milliseconds.
		seconds := sdkmetric.NewView(sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram, Unit: "s"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: latencyBuckets}})
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithView(seconds))
		temporalHandler = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
			Meter: mp.Meter("temporal-sdk"), UseMonotonicCounters: true,
		})
	})
	return temporalHandler
}
