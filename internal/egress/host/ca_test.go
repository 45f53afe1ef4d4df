package host

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/egress/secrets"
)

// A stopped boot's sealed CA is removed, and a newer boot's is not: the
// death of an old container can be seen after the next boot sealed its CA.
func TestDropCARemovesOnlyItsOwnBoot(t *testing.T) {
	store, err := secrets.NewFileStore(t.TempDir(), []byte("test key material, 32 bytes or more"))
	require.NoError(t, err)
	h := &egressHost{sealed: store, log: zap.NewNop()}
	c, err := ca.New("s1")
	require.NoError(t, err)

	h.saveCA("s1", "boot-2", c)
	h.dropCA("s1", "boot-1") // an older boot's death, seen late
	require.NotNil(t, h.loadCA("s1", "boot-2"), "a newer boot's CA was removed")

	h.dropCA("s1", "boot-2")
	require.Nil(t, h.loadCA("s1", "boot-2"), "a stopped boot's CA is still sealed")
	_, err = store.GetSealed(secrets.SealedKey(sealedCAKind, "s1"))
	require.ErrorIs(t, err, secrets.ErrNotFound)
}
