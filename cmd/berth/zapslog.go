package main

import (
	"log/slog"
	"os"
)

// sdkLogger gives the Temporal SDK a slog logger. The SDK is chatty at info
// level (every poller start), so it logs warnings and errors only.
func sdkLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
