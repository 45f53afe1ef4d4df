package gateway

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/api"
)

// An activity that ran past its timeout on a loaded host (a ResolveImage
// a busy registry held, seen in a loaded CI run) is a retryable 504, not a
// 500 INTERNAL.
func TestATemporalTimeoutIsATimeoutNotAnInternalError(t *testing.T) {
	err := fmt.Errorf("workflow execution error: activity error: %w",
		temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil))
	e := fromTemporal(err, "box")
	require.Equal(t, http.StatusGatewayTimeout, e.Status)
	require.Equal(t, api.CodeTimeout, e.Code)
	require.True(t, e.Retryable)
}
