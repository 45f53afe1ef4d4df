package host

import (
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/egress/secrets"
	"github.com/berthdev/berth/internal/sandboxlog"
)

// A boot's CA outlives the worker that made it: its key is sealed with the
// secret store's key into the shared blob store (never into a container,
// history or a log), so a restarted worker, finding the container still
// running, intercepts its HTTPS again with the CA the container trusts.

// sealedCAKind names the sealed objects holding sandboxes' CAs.
const sealedCAKind = "egress-ca"

// sealedCA is the sealed form of one boot's CA.
type sealedCA struct {
	BootID string `json:"bootId"`
	Cert   []byte `json:"cert"`
	Key    []byte `json:"key"`
}

// saveCA seals a boot's CA for the workers after this one; without a blob
// store it stays in this process only.
func (h *egressHost) saveCA(sandbox, bootID string, c *ca.CA) {
	if h.sealed == nil {
		return
	}
	b, err := json.Marshal(sealedCA{BootID: bootID, Cert: c.CertPEM(), Key: c.KeyPEM()})
	if err == nil {
		err = h.sealed.PutSealed(secrets.SealedKey(sealedCAKind, sandbox), b)
	}
	if err != nil {
		h.log.Warn("egress: the boot's CA is not kept for a restarted worker", sandboxlog.Of(sandbox, bootID), zap.Error(err))
	}
}

// dropCA removes the sealed CA of one boot of sandbox, and only of that
// boot. A boot that seals its CA between the read and the delete loses it
// to this; its HTTPS is then intercepted until a worker restart, not after,
// as before CAs were sealed.
func (h *egressHost) dropCA(sandbox, bootID string) {
	if h.sealed == nil {
		return
	}
	key := secrets.SealedKey(sealedCAKind, sandbox)
	b, err := h.sealed.GetSealed(key)
	if err != nil {
		return // none, or unreadable: nothing of this boot to remove
	}
	var s sealedCA
	if json.Unmarshal(b, &s) == nil && s.BootID != bootID {
		return // a newer boot's
	}
	if err := h.sealed.DeleteSealed(key); err != nil {
		h.log.Warn("egress: remove a stopped boot's sealed CA", sandboxlog.Of(sandbox, bootID), zap.Error(err))
	}
}

// loadCA is the sealed CA of this boot of sandbox, or nil.
func (h *egressHost) loadCA(sandbox, bootID string) *ca.CA {
	if h.sealed == nil {
		return nil
	}
	b, err := h.sealed.GetSealed(secrets.SealedKey(sealedCAKind, sandbox))
	if err != nil {
		if !errors.Is(err, secrets.ErrNotFound) {
			h.log.Warn("egress: read a sandbox's sealed CA", sandboxlog.Of(sandbox, bootID), zap.Error(err))
		}
		return nil
	}
	var s sealedCA
	if json.Unmarshal(b, &s) != nil || s.BootID != bootID {
		return nil // another boot's
	}
	c, err := ca.Load(s.Cert, s.Key)
	if err != nil {
		h.log.Warn("egress: a sandbox's sealed CA does not load", sandboxlog.Of(sandbox, bootID), zap.Error(err))
		return nil
	}
	return c
}

// boundHosts answers the proxy's "is some secret bound to this host?" from
// the store's host patterns, read again at most every boundHostsTTL (a
// secret set now is intercepted for within seconds).
type boundHosts struct {
	store interface{ BoundHosts() ([]string, error) }
	log   *zap.Logger

	// patterns is the last list read; Match reads it without a lock and
	// never waits for the store: a stale list starts a refresh in the
	// background (one at a time), so a slow or failing store never holds
	// up a connection (most carry no placeholder at all).
	patterns   atomic.Pointer[boundSnapshot]
	refreshing atomic.Bool
}

type boundSnapshot struct {
	read     time.Time
	patterns []policy.Domain
}

const boundHostsTTL = 2 * time.Second

// newBoundHosts starts the first read at once, in the background.
func newBoundHosts(store interface{ BoundHosts() ([]string, error) }, log *zap.Logger) *boundHosts {
	b := &boundHosts{store: store, log: log}
	b.refreshing.Store(true)
	go b.refresh()
	return b
}

func (b *boundHosts) refresh() {
	defer b.refreshing.Store(false)
	hosts, err := b.store.BoundHosts()
	snap := &boundSnapshot{read: time.Now()}
	if err != nil {
		b.log.Warn("egress: list the secrets' hosts", zap.Error(err))
		if old := b.patterns.Load(); old != nil {
			snap.patterns = old.patterns // keep the last good list
		}
	} else {
		for _, p := range hosts {
			if d, err := policy.ParseDomain(p); err == nil {
				snap.patterns = append(snap.patterns, d)
			}
		}
	}
	b.patterns.Store(snap)
}

func (b *boundHosts) Match(host string) bool {
	h, ok := policy.NormalizeHost(host)
	if !ok {
		return false
	}
	snap := b.patterns.Load()
	if (snap == nil || time.Since(snap.read) > boundHostsTTL) && b.refreshing.CompareAndSwap(false, true) {
		go b.refresh()
	}
	if snap == nil {
		return false
	}
	for _, d := range snap.patterns {
		if d.Match(h) {
			return true
		}
	}
	return false
}
