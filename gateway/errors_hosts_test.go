package gateway

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// A start refused for consent is a 409 naming the lost host; one no host
// has room for is a retryable 503 with Retry-After.
func TestStartRefusalsOfManyHostsMapToTheirStatus(t *testing.T) {
	e := fromTemporal(temporal.NewNonRetryableApplicationError("newest workspace on h2", contract.ErrRollbackNeeded, nil,
		map[string]any{"host": "h2", "backupId": ""}), "box")
	require.Equal(t, http.StatusConflict, e.Status)
	require.Equal(t, api.CodeRollbackNeeded, e.Code)
	require.False(t, e.Retryable, "it needs the caller's consent, not time")
	require.Equal(t, "h2", e.Context["host"])

	e = fromTemporal(temporal.NewNonRetryableApplicationError("every host is full", contract.ErrNoCapacity, nil), "box")
	require.Equal(t, http.StatusServiceUnavailable, e.Status)
	require.Equal(t, api.CodeNoCapacity, e.Code)
	require.True(t, e.Retryable)
	require.Positive(t, e.RetryAfterSeconds())
}
