package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
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

// FileStore keeps one file per secret under a directory: the record in clear
// and the value encrypted with AES-256-GCM. The record is the additional
// data, so a file edited to bind the value to another host or name no longer
// decrypts.
type FileStore struct {
	dir  string
	aead cipher.AEAD
	now  func() time.Time
	mu   sync.Mutex
}

type fileRecord struct {
	Record
	Nonce      []byte `json:"nonce"`
	Ciphertext []byte `json:"ciphertext"`
}

// NewFileStore opens (creating it, mode 0700) a store under dir with a key
// derived from material by DeriveKey.
func NewFileStore(dir string, material []byte) (*FileStore, error) {
	key, err := DeriveKey(material)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &FileStore{dir: dir, aead: aead, now: time.Now}, nil
}

// path names the file by the hex of the name, so '/' in names is safe.
func (s *FileStore) path(name string) string {
	return filepath.Join(s.dir, hex.EncodeToString([]byte(name))+".json")
}

func additionalData(r Record) []byte {
	b, _ := json.Marshal(struct {
		Name    string   `json:"name"`
		Hosts   []string `json:"hosts"`
		Version int      `json:"version"`
	}{r.Name, r.Hosts, r.Version})
	return b
}

func (s *FileStore) Put(name, value string, hosts []string) (Record, error) {
	if err := ValidName(name); err != nil {
		return Record{}, err
	}
	if err := validValue(value); err != nil {
		return Record{}, err
	}
	hosts, err := normalizeHosts(hosts)
	if err != nil {
		return Record{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UTC()
	rec := Record{Name: name, Hosts: hosts, Version: 1, CreatedAt: now, UpdatedAt: now}
	if old, err := s.read(name); err == nil {
		rec.Version, rec.CreatedAt = old.Version+1, old.CreatedAt
	} else if !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	fr := fileRecord{Record: rec, Nonce: make([]byte, s.aead.NonceSize())}
	if _, err := rand.Read(fr.Nonce); err != nil {
		return Record{}, err
	}
	fr.Ciphertext = s.aead.Seal(nil, fr.Nonce, []byte(value), additionalData(rec))
	b, err := json.Marshal(fr)
	if err != nil {
		return Record{}, err
	}
	if err := writeAtomic(s.path(name), b); err != nil {
		return Record{}, err
	}
	return rec, nil
}

func (s *FileStore) Delete(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return err
}

func (s *FileStore) List() ([]Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var out []Record
	for _, e := range ents {
		hexName, ok := strings.CutSuffix(e.Name(), ".json")
		name, err := hex.DecodeString(hexName)
		if !ok || err != nil || ValidName(string(name)) != nil {
			continue // temporary files and strangers
		}
		fr, err := s.read(string(name))
		if err != nil {
			return nil, err
		}
		out = append(out, fr.Record)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Resolve reads the file on every call: a rotation or deletion is seen by
// the next request, with no cache to invalidate.
func (s *FileStore) Resolve(name, host string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	s.mu.Lock()
	fr, err := s.read(name)
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	if !boundTo(fr.Hosts, host) {
		return "", fmt.Errorf("%w: %q is bound to %s, not %q", ErrNotBound, name, strings.Join(fr.Hosts, ", "), host)
	}
	v, err := s.aead.Open(nil, fr.Nonce, fr.Ciphertext, additionalData(fr.Record))
	if err != nil {
		return "", fmt.Errorf("secrets: %q does not decrypt (wrong key or altered file)", name)
	}
	return string(v), nil
}

func (s *FileStore) read(name string) (fileRecord, error) {
	var fr fileRecord
	b, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return fr, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if err != nil {
		return fr, err
	}
	if err := json.Unmarshal(b, &fr); err != nil || fr.Name != name {
		return fr, fmt.Errorf("secrets: file for %q is damaged", name)
	}
	return fr, nil
}

func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
