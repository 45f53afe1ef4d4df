package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateHostAddr(t *testing.T) {
	for _, ok := range []string{"", "10.0.0.5:7443", "[fd00::5]:7443", "worker-1.internal:7443"} {
		require.NoError(t, Config{HostAddr: ok}.ValidateHostAddr(), ok)
	}
	for _, bad := range []string{"10.0.0.5", ":7443", "0.0.0.0:7443", "[::]:7443", "10.0.0.5:0", "10.0.0.5:http", "10.0.0.5:70000"} {
		require.Error(t, Config{HostAddr: bad}.ValidateHostAddr(), bad)
	}
}
