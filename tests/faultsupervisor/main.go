// Command faultsupervisor stands in for berth-supervisor in fault-injection
// tests: it answers the health check for its boot like the real one, then
// refuses every env push with 400, so a boot fails after its container
// runs. Nothing else.
package main

import (
	"encoding/json"
	"net/http"
	"os"
)

func main() {
	boot := os.Getenv("BERTH_BOOT_ID")
	http.HandleFunc("GET /v1/health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"bootId": boot, "pid": os.Getpid()})
	})
	http.HandleFunc("PUT /v1/env", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"code":"VALIDATION_FAILED","message":"injected fault: env refused","retryable":false}}`))
	})
	addr := os.Getenv("BERTH_SUPERVISOR_LISTEN")
	if addr == "" {
		addr = ":7070"
	}
	if err := http.ListenAndServe(addr, nil); err != nil {
		os.Exit(1)
	}
}
