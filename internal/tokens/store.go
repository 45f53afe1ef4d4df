// Package tokens keeps the gateway's scoped tokens in the blob store every
// gateway shares (beside the secrets and the host registry), one object
// per token holding a SHA-256 hash of its value, never the value. A
// revocation deletes the object; each gateway caches what it read for at
// most CacheTTL, so every gateway stops accepting a revoked token within
// that bound (docs/design/people.md).
package tokens

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
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

// Prefix is where tokens live in the blob store. Keys
// ("tokens/<id>.token") never parse as backup keys (those end in a backup
// id and a backup suffix), so backup listing passes them by even for a
// sandbox named "tokens".
const Prefix = "tokens/"

const suffix = ".token"

// valuePrefix starts every scoped token's value, so a leaked one is
// recognisable (secret scanners) and never mistaken for BERTH_TOKEN.
const valuePrefix = "bt_"

// DefaultCacheTTL is how long a gateway trusts what it read of a token:
// the bound on how late a revocation reaches another gateway.
const DefaultCacheTTL = 5 * time.Second

// maxCache bounds the cache (ids of unknown tokens are cached too, so a
// client spraying made-up tokens costs one store read per id per TTL).
const maxCache = 4096

// Record is a token as stored.
type Record struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Sandboxes []string  `json:"sandboxes"`
	Scopes    []string  `json:"scopes"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Hash is the hex SHA-256 of the value. Values are 32 random bytes, so
	// a plain hash is enough: nothing to brute-force.
	Hash string `json:"hash"`
}

var (
	ErrNotFound = errors.New("no such token")
	ErrInvalid  = errors.New("token is not valid")
	ErrExpired  = errors.New("token has expired")
)

// Store reads and writes tokens.
type Store struct {
	blob     blob.Store
	cacheTTL time.Duration
	now      func() time.Time
	timeout  time.Duration

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	rec *Record // nil: no such token
	at  time.Time
}

// New is a store over b whose reads are trusted for cacheTTL (0 takes
// DefaultCacheTTL; negative disables the cache).
func New(b blob.Store, cacheTTL time.Duration) *Store {
	if cacheTTL == 0 {
		cacheTTL = DefaultCacheTTL
	}
	return &Store{blob: b, cacheTTL: cacheTTL, now: time.Now, timeout: 10 * time.Second, cache: map[string]cached{}}
}

// CacheTTL is the store's revocation bound.
func (s *Store) CacheTTL() time.Duration { return max(s.cacheTTL, 0) }

func key(id string) string { return Prefix + id + suffix }

func validID(id string) bool {
	if len(id) != 16 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// ValidID reports whether id could name a token (16 lowercase hex digits).
func ValidID(id string) bool { return validID(id) }

func hashOf(value string) string {
	h := sha256.Sum256([]byte(value))
	return hex.EncodeToString(h[:])
}

// IsScoped reports whether value has the form of a scoped token.
func IsScoped(value string) bool { return strings.HasPrefix(value, valuePrefix) }

// Mint creates a token; value is returned once and never stored.
func (s *Store) Mint(ctx context.Context, rec Record) (Record, string, error) {
	idb := make([]byte, 8)
	secret := make([]byte, 32)
	if _, err := rand.Read(idb); err != nil {
		return Record{}, "", err
	}
	if _, err := rand.Read(secret); err != nil {
		return Record{}, "", err
	}
	rec.ID = hex.EncodeToString(idb)
	value := valuePrefix + rec.ID + "_" + base64.RawURLEncoding.EncodeToString(secret)
	rec.Hash = hashOf(value)
	b, err := json.Marshal(rec)
	if err != nil {
		return Record{}, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if _, err := s.blob.Put(ctx, key(rec.ID), bytes.NewReader(b)); err != nil {
		return Record{}, "", fmt.Errorf("tokens: store: %w", err)
	}
	return rec, value, nil
}

func (s *Store) read(ctx context.Context, id string) (*Record, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	r, err := s.blob.Get(ctx, key(id))
	if errors.Is(err, blob.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("tokens: read %s: %w", id, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("tokens: read %s: %w", id, err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil || rec.ID != id {
		return nil, fmt.Errorf("tokens: record %s is corrupt", id)
	}
	return &rec, nil
}

// lookup is read through the cache.
func (s *Store) lookup(ctx context.Context, id string) (*Record, error) {
	now := s.now()
	if s.cacheTTL > 0 {
		s.mu.Lock()
		c, ok := s.cache[id]
		s.mu.Unlock()
		if ok && now.Sub(c.at) < s.cacheTTL {
			if c.rec == nil {
				return nil, ErrNotFound
			}
			return c.rec, nil
		}
	}
	rec, err := s.read(ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err // the store's trouble is not cached
	}
	if s.cacheTTL > 0 {
		s.mu.Lock()
		if len(s.cache) >= maxCache {
			clear(s.cache)
		}
		s.cache[id] = cached{rec: rec, at: now}
		s.mu.Unlock()
	}
	return rec, err
}

// Authenticate returns the record of the token whose value this is:
// ErrInvalid for a malformed, unknown or revoked one, ErrExpired past its
// lifetime, another error when the store cannot be read.
func (s *Store) Authenticate(ctx context.Context, value string) (*Record, error) {
	rest, ok := strings.CutPrefix(value, valuePrefix)
	id, _, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 || !validID(id) {
		return nil, ErrInvalid
	}
	rec, err := s.lookup(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrInvalid
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(hashOf(value)), []byte(rec.Hash)) != 1 {
		return nil, ErrInvalid
	}
	if !s.now().Before(rec.ExpiresAt) {
		return nil, ErrExpired
	}
	return rec, nil
}

// List returns every stored token (expired ones too, until revoked),
// oldest first.
func (s *Store) List(ctx context.Context) ([]Record, error) {
	lctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	objs, err := s.blob.List(lctx, Prefix)
	if err != nil {
		return nil, fmt.Errorf("tokens: list: %w", err)
	}
	out := []Record{}
	for _, o := range objs {
		id, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, Prefix), suffix)
		if !ok || !validID(id) {
			continue
		}
		rec, err := s.read(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // revoked since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *rec)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Revoke deletes a token; this gateway stops accepting it at once, the
// others within their CacheTTL.
func (s *Store) Revoke(ctx context.Context, id string) error {
	if !validID(id) {
		return ErrNotFound
	}
	if _, err := s.read(ctx, id); err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.blob.Delete(dctx, key(id)); err != nil {
		return fmt.Errorf("tokens: revoke %s: %w", id, err)
	}
	s.mu.Lock()
	s.cache[id] = cached{rec: nil, at: s.now()}
	s.mu.Unlock()
	return nil
}

// Lookup returns the live record of token id (through the cache):
// ErrInvalid when it is unknown or revoked, ErrExpired past its lifetime.
// The console's sessions name their token by id.
func (s *Store) Lookup(ctx context.Context, id string) (*Record, error) {
	if !validID(id) {
		return nil, ErrInvalid
	}
	rec, err := s.lookup(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, ErrInvalid
	}
	if err != nil {
		return nil, err
	}
	if !s.now().Before(rec.ExpiresAt) {
		return nil, ErrExpired
	}
	return rec, nil
}
