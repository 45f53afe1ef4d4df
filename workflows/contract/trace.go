package contract

// TraceSpanKey is the workflow-context key under which the Temporal SDK's
// tracing interceptor keeps the current span (internal/tracing sets it as
// the interceptor's SpanContextKey). The workflow reads it to run an
// update's intent under that update's span (workflows/trace.go), so the
// activities the intent runs join the request's trace.
var TraceSpanKey any = traceSpanKey{}

type traceSpanKey struct{}
