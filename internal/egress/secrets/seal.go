package secrets

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"

	"github.com/berthdev/berth/internal/blob"
)

// keyInfo separates this key from any other derived from the same material.
const keyInfo = "berth egress secrets v1"

// DeriveKey turns key material (BERTH_SECRET, or a key given separately) into
// the 32-byte AES-256-GCM key of the store with HKDF-SHA256.
func DeriveKey(material []byte) ([]byte, error) {
	if len(material) < 16 {
		return nil, errors.New("secrets: key material must be at least 16 bytes")
	}
	return hkdf.Key(sha256.New, material, nil, keyInfo, 32)
}

// fileRecord is what is stored for a secret: the record in clear and the
// value sealed with AES-256-GCM. The record is the additional data, so an
// object edited to bind the value to another host or name no longer
// decrypts.
type fileRecord struct {
	Record
	// KeyID names the key that sealed it (none: sealed before keys had
	// ids, opened by trying each).
	KeyID      string `json:"kid,omitempty"`
	Nonce      []byte `json:"nonce"`
	Ciphertext []byte `json:"ciphertext"`
}

// additionalData binds a sealed value to its record. InURL is left out when
// false, so objects sealed before it existed still open.
func additionalData(r Record) []byte {
	b, _ := json.Marshal(struct {
		Name    string   `json:"name"`
		Hosts   []string `json:"hosts"`
		Version int      `json:"version"`
		InURL   bool     `json:"inUrl,omitempty"`
	}{r.Name, r.Hosts, r.Version, r.InURL})
	return b
}

// NewFileStore keeps secrets in a local directory (created, mode 0700): a
// BlobStore over a file blob store, for a single host or a test.
func NewFileStore(dir string, material []byte) (*BlobStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	bs, err := blob.OpenFile(dir)
	if err != nil {
		return nil, err
	}
	return NewBlobStore(bs, material)
}
