package stacktest

import (
	"testing"

	"github.com/google/nftables"
	"github.com/stretchr/testify/require"
)

// InetTableExists reports whether the host has an nftables table of the
// inet family by this name (the network guard's, a worker's redirect
// table).
func InetTableExists(t testing.TB, name string) bool {
	t.Helper()
	c, err := nftables.New()
	require.NoError(t, err)
	defer c.CloseLasting()
	_, err = c.ListTableOfFamily(name, nftables.TableFamilyINet)
	return err == nil
}
