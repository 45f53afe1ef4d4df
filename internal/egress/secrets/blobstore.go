package secrets

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/berthdev/berth/internal/blob"
)

// BlobPrefix is where BlobStore keeps secrets in the blob store. Its keys
// ("secrets/<hex of name>.secret") never parse as backup keys (those end
// in a backup id), so backup listing and retention pass them by even for a
// sandbox named "secrets".
const BlobPrefix = "secrets/"

const blobSuffix = ".secret"

// BlobStore keeps secrets in the blob store every gateway and worker
// shares, one object per secret (a fileRecord: AES-256-GCM, the record
// as additional data).
type BlobStore struct {
	store blob.Store
	ring  keyring
	now   func() time.Time
	// mu serialises this process's read-modify-write of versions; two
	// processes rotating the same secret at once may both write the same
	// next version, and the later write wins.
	mu sync.Mutex
	// pins is the highest version of each secret this process has read or
	// written: an older object put back in the store (its value or hosts
	// from before a rotation, sealed and so valid) is refused, not used.
	pinMu sync.Mutex
	pins  map[string]int
	// Timeout bounds each call to the blob store.
	Timeout time.Duration
}

// NewBlobStore opens a store over store with one key derived from
// material by DeriveKey.
func NewBlobStore(store blob.Store, material []byte) (*BlobStore, error) {
	return OpenBlobStore(store, Keys{Current: material})
}

// OpenBlobStore opens a store over store that seals with keys.Current and
// opens with any of keys.
func OpenBlobStore(store blob.Store, keys Keys) (*BlobStore, error) {
	ring, err := newKeyring(keys)
	if err != nil {
		return nil, err
	}
	return &BlobStore{store: store, ring: ring, now: time.Now, Timeout: 30 * time.Second, pins: map[string]int{}}, nil
}

// BlobKey is the object key of a secret.
func BlobKey(name string) string { return BlobPrefix + hex.EncodeToString([]byte(name)) + blobSuffix }

func (s *BlobStore) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.Timeout)
}

func (s *BlobStore) Put(name, value string, hosts []string) (Record, error) {
	return s.PutWith(name, value, hosts, Options{})
}

// PutWith is Put with the secret's options.
func (s *BlobStore) PutWith(name, value string, hosts []string, opts Options) (Record, error) {
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
	// A secret deleted and made again goes on from the versions this
	// process saw, so an object of the old one put back stays refused.
	rec := Record{Name: name, Hosts: hosts, Version: s.pin(name) + 1, InURL: opts.InURL, CreatedAt: now, UpdatedAt: now}
	if old, err := s.read(name); err == nil {
		rec.Version, rec.CreatedAt = max(old.Version, rec.Version-1)+1, old.CreatedAt
	} else if !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	if err := s.write(rec, []byte(value)); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// write seals value under the current key with rec as additional data and
// stores it, pinning rec's version.
func (s *BlobStore) write(rec Record, value []byte) error {
	k := s.ring.current()
	fr := fileRecord{Record: rec, KeyID: k.id, Nonce: make([]byte, k.aead.NonceSize())}
	if _, err := rand.Read(fr.Nonce); err != nil {
		return err
	}
	fr.Ciphertext = k.aead.Seal(nil, fr.Nonce, value, additionalData(rec))
	b, err := json.Marshal(fr)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if _, err := s.store.Put(ctx, BlobKey(rec.Name), bytes.NewReader(b)); err != nil {
		return fmt.Errorf("secrets: store %q: %w", rec.Name, err)
	}
	s.raisePin(rec.Name, rec.Version)
	return nil
}

func (s *BlobStore) Delete(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.read(name); err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.store.Delete(ctx, BlobKey(name)); err != nil {
		return fmt.Errorf("secrets: delete %q: %w", name, err)
	}
	return nil
}

func (s *BlobStore) List() ([]Record, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	objs, err := s.store.List(ctx, BlobPrefix)
	if err != nil {
		return nil, fmt.Errorf("secrets: list: %w", err)
	}
	out := []Record{}
	for _, o := range objs {
		hexName, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, BlobPrefix), blobSuffix)
		name, err := hex.DecodeString(hexName)
		if !ok || err != nil || ValidName(string(name)) != nil {
			continue // not a secret
		}
		fr, err := s.read(string(name))
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fr.Record)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Get returns one secret's record, never its value.
func (s *BlobStore) Get(name string) (Record, error) {
	if err := ValidName(name); err != nil {
		return Record{}, err
	}
	fr, err := s.read(name)
	return fr.Record, err
}

// Resolve reads the object on every call, so a rotation or a deletion made
// through any gateway is seen by the next request.
func (s *BlobStore) Resolve(name, host string) (string, error) {
	return s.resolve(name, host, false)
}

// ResolveInURL is Resolve for a placeholder in a URL's path or query: only
// secrets stored with InURL may go there (ErrNotInURL otherwise).
func (s *BlobStore) ResolveInURL(name, host string) (string, error) {
	return s.resolve(name, host, true)
}

func (s *BlobStore) resolve(name, host string, inURL bool) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	fr, err := s.read(name)
	if err != nil {
		return "", err
	}
	if inURL && !fr.InURL {
		return "", fmt.Errorf("%w: %q is for headers only (store it with inUrl to allow the path and query)", ErrNotInURL, name)
	}
	if !boundTo(fr.Hosts, host) {
		return "", fmt.Errorf("%w: %q is bound to %s, not %q", ErrNotBound, name, strings.Join(fr.Hosts, ", "), host)
	}
	v, err := s.ring.open(fr.KeyID, fr.Nonce, fr.Ciphertext, additionalData(fr.Record))
	if err != nil {
		return "", fmt.Errorf("secrets: %q %v", name, err)
	}
	return string(v), nil
}

func (s *BlobStore) read(name string) (fileRecord, error) {
	var fr fileRecord
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := s.store.Get(ctx, BlobKey(name))
	if errors.Is(err, blob.ErrNotFound) {
		return fr, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if err != nil {
		return fr, fmt.Errorf("secrets: read %q: %w", name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 4*MaxValue))
	if err != nil {
		return fr, fmt.Errorf("secrets: read %q: %w", name, err)
	}
	if err := json.Unmarshal(b, &fr); err != nil || fr.Name != name {
		return fr, fmt.Errorf("secrets: object for %q is damaged", name)
	}
	if pin := s.pin(name); fr.Version < pin {
		return fr, fmt.Errorf("%w: %q is at version %d in the store, older than version %d seen before: an older object was put back",
			ErrRolledBack, name, fr.Version, pin)
	}
	s.raisePin(name, fr.Version)
	return fr, nil
}

func (s *BlobStore) pin(name string) int {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	return s.pins[name]
}

func (s *BlobStore) raisePin(name string, v int) {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if v > s.pins[name] {
		s.pins[name] = v
	}
}
