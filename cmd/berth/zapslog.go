package main

import (
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/berthdev/berth/internal/sandboxlog"
)

// sdkLogger gives the Temporal SDK a slog logger writing through log, so
// its lines share the server's format (JSON in production) and fields
// (sandboxlog.SDKHandler). The SDK is chatty at info level (every poller
// start), so it logs warnings and errors only, unless BERTH_LOG_LEVEL=debug
// asks for everything.
func sdkLogger(log *zap.Logger) *slog.Logger {
	level := slog.LevelWarn
	if log.Core().Enabled(zapcore.DebugLevel) {
		level = slog.LevelDebug
	}
	return slog.New(sandboxlog.SDKHandler(log.Named("temporal"), level))
}
