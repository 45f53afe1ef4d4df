package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// MinStoreKey is the shortest BERTH_SECRETS_KEY accepted: 32 bytes, as
// `openssl rand -hex 16` or longer gives.
const MinStoreKey = 32

// Keys are the key material of a secret store: Current seals every object
// written; Retired only open objects sealed before a rotation, until
// `berth secrets rekey` has re-sealed them under Current.
type Keys struct {
	Current []byte
	Retired [][]byte
}

// StoreKeys makes the store's keys from the configuration: key
// (BERTH_SECRETS_KEY, at least MinStoreKey bytes) seals; retired
// (BERTH_SECRETS_RETIRED_KEYS, comma separated) and the deployment secret
// only open what earlier keys sealed (the store was keyed by BERTH_SECRET
// before it had a key of its own). The key is required: the deployment
// secret also signs supervisor tokens, and one leak must not open both
// (`berth dev` keeps a key in its data directory).
func StoreKeys(key, retired, deploymentSecret string) (Keys, error) {
	k := key
	switch {
	case k == "":
		return Keys{}, errors.New("BERTH_SECRETS_KEY is required: a key of at least 32 bytes of its own, " +
			"the same on every gateway and worker (secrets sealed before under BERTH_SECRET still open once it is set; `berth secrets rekey` re-seals them)")
	case len(k) < MinStoreKey:
		return Keys{}, fmt.Errorf("BERTH_SECRETS_KEY is %d bytes; it must be at least %d", len(k), MinStoreKey)
	}
	keys := Keys{Current: []byte(k)}
	for _, r := range strings.Split(retired, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		if len(r) < 16 {
			return Keys{}, errors.New("BERTH_SECRETS_RETIRED_KEYS: each key must be at least 16 bytes")
		}
		keys.Retired = append(keys.Retired, []byte(r))
	}
	if len(deploymentSecret) >= 16 && deploymentSecret != k {
		keys.Retired = append(keys.Retired, []byte(deploymentSecret))
	}
	return keys, nil
}

// sealKey is one key of a keyring, with its id: the first 12 hex digits of
// a hash of the derived key (naming a key reveals nothing of it).
type sealKey struct {
	id   string
	aead cipher.AEAD
}

// keyring opens objects under any of its keys and seals under the first.
type keyring []sealKey

func newKeyring(k Keys) (keyring, error) {
	var ring keyring
	for i, m := range append([][]byte{k.Current}, k.Retired...) {
		key, err := DeriveKey(m)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("secrets: retired key %d: %w", i, err)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(append([]byte("berth secrets key id\x00"), key...))
		ring = append(ring, sealKey{id: hex.EncodeToString(sum[:6]), aead: aead})
	}
	return ring, nil
}

// current is the key that seals.
func (r keyring) current() sealKey { return r[0] }

// open opens a sealed value with the key named id; an object without an id
// (sealed before keys had one) is tried under each key.
func (r keyring) open(id string, nonce, ciphertext, ad []byte) ([]byte, error) {
	for _, k := range r {
		if id != "" && k.id != id {
			continue
		}
		if len(nonce) != k.aead.NonceSize() {
			return nil, errors.New("secrets: a sealed value's nonce is damaged")
		}
		if v, err := k.aead.Open(nil, nonce, ciphertext, ad); err == nil {
			return v, nil
		}
	}
	if id != "" && !r.has(id) {
		return nil, fmt.Errorf("sealed under key %s, which this process does not have (add it to BERTH_SECRETS_RETIRED_KEYS)", id)
	}
	return nil, errors.New("does not open (wrong key or altered object)")
}

func (r keyring) has(id string) bool {
	for _, k := range r {
		if k.id == id {
			return true
		}
	}
	return false
}
