package sandboxlog

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// SDKHandler writes the Temporal SDK's lines (given to it as a slog
// logger) through log, in the server's own format, at level and above.
// The SDK's WorkflowID and RunID become workflowId and runId, as on
// Berth's lines, and a line about a Sandbox workflow gains its sandbox
// and, for a line about an activity (the SDK's scheduling of it, its
// error), the boot that activity names (noted by the interceptor).
func SDKHandler(log *zap.Logger, level slog.Leveler) slog.Handler {
	return &sdkHandler{log: log, level: level}
}

type sdkHandler struct {
	log   *zap.Logger
	level slog.Leveler
	attrs []slog.Attr // from WithAttrs (the SDK's log.With)
	group string
}

func (h *sdkHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *sdkHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), h.prefixed(as)...)
	return &c
}

func (h *sdkHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.group = h.group + name + "."
	return &c
}

func (h *sdkHandler) prefixed(as []slog.Attr) []slog.Attr {
	if h.group == "" {
		return as
	}
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = slog.Attr{Key: h.group + a.Key, Value: a.Value}
	}
	return out
}

func (h *sdkHandler) Handle(_ context.Context, r slog.Record) error {
	attrs := append([]slog.Attr(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, h.prefixed([]slog.Attr{a})...)
		return true
	})
	fields := make([]zap.Field, 0, len(attrs)+2)
	var workflowID, runID, activityType string
	has := map[string]bool{}
	for _, a := range attrs {
		key, v := a.Key, a.Value.Resolve()
		switch key {
		case "WorkflowID":
			key, workflowID = KeyWorkflowID, v.String()
		case "RunID":
			key, runID = KeyRunID, v.String()
		case "ActivityType":
			activityType = v.String()
		}
		has[key] = true
		fields = append(fields, zap.Any(key, v.Any()))
	}
	if name := Name(workflowID); name != "" && !has[KeySandbox] {
		fields = append(fields, zap.String(KeySandbox, name))
		if activityType != "" && runID != "" && !has[KeyBootID] {
			if boot := boots.get(runID + "/" + activityType); boot != "" {
				fields = append(fields, zap.String(KeyBootID, boot))
			}
		}
	}
	if ce := h.log.Check(zapLevel(r.Level), r.Message); ce != nil {
		ce.Write(fields...)
	}
	return nil
}

func zapLevel(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.ErrorLevel
	case l >= slog.LevelWarn:
		return zapcore.WarnLevel
	case l >= slog.LevelInfo:
		return zapcore.InfoLevel
	}
	return zapcore.DebugLevel
}
