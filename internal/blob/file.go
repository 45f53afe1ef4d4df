package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// tmpPrefix marks in-flight Put files. List hides them and keys may not
// use it, so a crashed Put is never mistaken for an object.
const tmpPrefix = ".berth-tmp-"

// FileStore keeps objects as files under a root directory.
type FileStore struct{ root string }

// OpenFile returns a store rooted at dir, creating dir if needed.
func OpenFile(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, classifyFS(fmt.Errorf("blob: create store dir: %w", err))
	}
	return &FileStore{root: dir}, nil
}

func (s *FileStore) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	if strings.HasPrefix(filepath.Base(key), tmpPrefix) {
		return "", Permanent(fmt.Errorf("%w: %q uses a reserved name", ErrInvalidKey, key))
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// Put writes to a temp file in the destination directory, fsyncs it and
// renames it over the key, so readers see either nothing or the whole
// object, even across a crash.
func (s *FileStore) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := s.path(key)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, classifyFS(err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, classifyFS(err)
	}
	n, err := io.Copy(f, ctxReader{ctx, r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return n, classifyFS(fmt.Errorf("blob: put %s: %w", key, err))
	}
	// The rename is durable only once the directory entry is synced.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return n, nil
}

func (s *FileStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, classifyFS(fmt.Errorf("blob: get %s: %w", key, err))
	}
	return f, nil
}

func (s *FileStore) Stat(ctx context.Context, key string) (Object, error) {
	p, err := s.path(key)
	if err != nil {
		return Object{}, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return Object{}, classifyFS(fmt.Errorf("blob: stat %s: %w", key, err))
	}
	if !fi.Mode().IsRegular() {
		return Object{}, &notFoundError{fmt.Errorf("blob: stat %s: not a regular file", key)}
	}
	return Object{Key: key, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

func (s *FileStore) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return classifyFS(fmt.Errorf("blob: delete %s: %w", key, err))
	}
	return nil
}

// List walks only the directory that prefix's complete segments name, so
// listing one sandbox does not walk every other sandbox's backups.
func (s *FileStore) List(ctx context.Context, prefix string) ([]Object, error) {
	base := s.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		if err := CheckKey(prefix[:i]); err != nil {
			return nil, err
		}
		base = filepath.Join(s.root, filepath.FromSlash(prefix[:i]))
	}
	var out []Object
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // nothing stored under this prefix yet
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), tmpPrefix) {
			return nil
		}
		rel, err := filepath.Rel(s.root, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted while listing
		} else if err != nil {
			return err
		}
		out = append(out, Object{Key: key, Size: fi.Size(), ModTime: fi.ModTime()})
		return nil
	})
	if err != nil {
		return nil, classifyFS(fmt.Errorf("blob: list %q: %w", prefix, err))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// ctxReader stops a long copy promptly when ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
