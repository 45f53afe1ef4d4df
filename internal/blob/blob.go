// Package blob is the object-store abstraction backups are written to: a
// flat key space of immutable objects, backed by a local directory
// (file://) or an S3-compatible bucket (s3://).
//
// Keys are slash-separated relative paths ("sandbox/backup.tar.zst"). A key
// that is visible through Get, Stat or List is always complete: both stores
// publish an object only once all of its bytes are durable, so a crash
// mid-Put never leaves a truncated object behind under its key.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Store is an object store. Implementations are safe for concurrent use.
type Store interface {
	// Put streams r into the object at key and returns the number of bytes
	// stored. It never buffers the whole object in memory or on disk; the
	// object becomes visible only when Put returns nil.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Get opens the object at key for reading. The caller must Close it.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Stat returns the object's metadata.
	Stat(ctx context.Context, key string) (Object, error)
	// Delete removes the object. Deleting a missing object is not an error,
	// so cleanup can be retried freely.
	Delete(ctx context.Context, key string) error
	// List returns every object whose key starts with prefix (a plain string
	// prefix, not necessarily ending in "/"), sorted by key.
	List(ctx context.Context, prefix string) ([]Object, error)
}

// Object describes one stored object.
type Object struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// ErrNotFound is returned (wrapped) when a key does not exist.
var ErrNotFound = errors.New("blob: object not found")

// ErrInvalidKey is returned (wrapped) for keys that are not clean relative
// slash paths. It is permanent.
var ErrInvalidKey = errors.New("blob: invalid key")

// CheckKey rejects keys that could escape a file store's root or alias
// another key ("a//b", "a/./b"), so both stores accept exactly the same keys.
func CheckKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.ContainsRune(key, 0) {
		return Permanent(fmt.Errorf("%w: %q", ErrInvalidKey, key))
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return Permanent(fmt.Errorf("%w: %q", ErrInvalidKey, key))
		}
	}
	return nil
}
