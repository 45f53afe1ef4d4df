package secrets

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/berthdev/berth/internal/blob"
)

// SealedPrefix is where the host-side objects sealed with the store's key
// live (egress CAs of running sandboxes), beside the secrets. Their keys
// never parse as secret keys (those are hex) or backup keys.
const SealedPrefix = BlobPrefix + "sealed/"

// sealedObject is a sealed object: the key it is stored under is its
// additional data, so an object copied to another key does not open.
type sealedObject struct {
	KeyID      string `json:"kid,omitempty"`
	Nonce      []byte `json:"nonce"`
	Ciphertext []byte `json:"ciphertext"`
}

// SealedKey is the blob key of the sealed object kind/id.
func SealedKey(kind, id string) string {
	return SealedPrefix + kind + "/" + hex.EncodeToString([]byte(id)) + ".sealed"
}

// PutSealed seals data with the store's key and stores it under key
// (from SealedKey), replacing what was there.
func (s *BlobStore) PutSealed(key string, data []byte) error {
	k := s.ring.current()
	o := sealedObject{KeyID: k.id, Nonce: make([]byte, k.aead.NonceSize())}
	if _, err := rand.Read(o.Nonce); err != nil {
		return err
	}
	o.Ciphertext = k.aead.Seal(nil, o.Nonce, data, []byte(key))
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if _, err := s.store.Put(ctx, key, bytes.NewReader(b)); err != nil {
		return fmt.Errorf("secrets: store a sealed object: %w", err)
	}
	return nil
}

// GetSealed opens the object stored under key; ErrNotFound when there is
// none.
func (s *BlobStore) GetSealed(key string) ([]byte, error) {
	o, err := s.readSealed(key)
	if err != nil {
		return nil, err
	}
	data, err := s.ring.open(o.KeyID, o.Nonce, o.Ciphertext, []byte(key))
	if err != nil {
		return nil, fmt.Errorf("secrets: a sealed object %v", err)
	}
	if o.KeyID != s.ring.current().id {
		// Sealed under a retired key: sealed again under the current one,
		// so that key can go once nothing needs it.
		_ = s.PutSealed(key, data)
	}
	return data, nil
}

func (s *BlobStore) readSealed(key string) (sealedObject, error) {
	var o sealedObject
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := s.store.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return o, ErrNotFound
	}
	if err != nil {
		return o, fmt.Errorf("secrets: read a sealed object: %w", err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return o, errors.New("secrets: a sealed object is damaged")
	}
	return o, nil
}

// DeleteSealed removes the object under key; a missing one is not an
// error.
func (s *BlobStore) DeleteSealed(key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.store.Delete(ctx, key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return err
	}
	return nil
}

// BoundHosts lists the host patterns of every secret (names and values
// stay out): the hosts whose HTTPS the proxy intercepts for any sandbox.
func (s *BlobStore) BoundHosts() ([]string, error) {
	recs, err := s.List()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Hosts...)
	}
	return out, nil
}
