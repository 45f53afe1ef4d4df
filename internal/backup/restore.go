package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/zstdtar"
	"github.com/berthdev/berth/internal/blob"
)

// Restore extracts backup backupID of sandbox into dir, which must be
// missing or empty (a fresh volume). The archive's size and sha256 are
// checked against the manifest while it streams; a mismatch, a damaged
// stream or a hostile entry fails with ErrCorrupt. On any error dir is
// left as it was (missing or empty): zstdtar.Extract publishes the tree
// only after the digest has been verified at EOF.
func Restore(ctx context.Context, store blob.Store, sandbox, backupID, dir string, progress archive.Progress) (Manifest, error) {
	return RestoreWith(ctx, store, sandbox, backupID, dir, RestoreOptions{Progress: progress})
}

// RestoreOptions tune RestoreWith.
type RestoreOptions struct {
	Progress archive.Progress
	// Unsynced publishes the tree without flushing it to disk first: the
	// restore runs at the speed of the page cache. The caller must then
	// treat dir as possibly torn after a host crash until it has called
	// archive.SyncFS on it (e.g. by keeping a marker that says "restore
	// again" until the sync).
	Unsynced bool
	// InPlace restores into dir itself, an empty directory a running
	// container already holds, instead of publishing a new one over it
	// (archive.ExtractOptions.InPlace). On error dir may hold part of the
	// tree: the caller discards it.
	InPlace bool
}

// RestoreWith is Restore with options.
func RestoreWith(ctx context.Context, store blob.Store, sandbox, backupID, dir string, o RestoreOptions) (Manifest, error) {
	if err := checkSandbox(sandbox); err != nil {
		return Manifest{}, err
	}
	if err := checkID(backupID); err != nil {
		return Manifest{}, err
	}
	m, err := ReadManifest(ctx, store, sandbox, backupID)
	if err != nil {
		return Manifest{}, err
	}
	rc, err := store.Get(ctx, ArchiveKey(sandbox, backupID))
	if err != nil {
		if errors.Is(err, blob.ErrNotFound) {
			return m, fmt.Errorf("%w: %s: manifest without archive: %w", ErrCorrupt, backupID, err)
		}
		return m, fmt.Errorf("backup: open archive: %w", err)
	}
	defer rc.Close()

	vr := &verifyingReader{r: rc, h: sha256.New(), size: m.Size, sum: m.SHA256}
	if _, err := zstdtar.ExtractWith(ctx, vr, dir, archive.ExtractOptions{Progress: o.Progress, NoSync: o.Unsynced, InPlace: o.InPlace}); err != nil {
		if errors.Is(err, archive.ErrFormat) || errors.Is(err, archive.ErrUnsafe) {
			err = fmt.Errorf("%w: %s: %w", ErrCorrupt, backupID, err)
		}
		return m, fmt.Errorf("backup: restore %s/%s: %w", sandbox, backupID, err)
	}
	return m, nil
}

// ReadManifest fetches and checks one manifest.
func ReadManifest(ctx context.Context, store blob.Store, sandbox, backupID string) (Manifest, error) {
	rc, err := store.Get(ctx, ManifestKey(sandbox, backupID))
	if err != nil {
		if errors.Is(err, blob.ErrNotFound) {
			return Manifest{}, fmt.Errorf("%w: %s/%s", ErrNoBackup, sandbox, backupID)
		}
		return Manifest{}, fmt.Errorf("backup: read manifest: %w", err)
	}
	defer rc.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestSize)).Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%w: manifest %s/%s: %w", ErrCorrupt, sandbox, backupID, err)
	}
	if m.Sandbox != sandbox || m.BackupID != backupID || (m.Format != Format && m.Format != FormatSparse) || len(m.SHA256) != sha256.Size*2 || m.Size <= 0 {
		return Manifest{}, fmt.Errorf("%w: manifest %s/%s does not describe this backup", ErrCorrupt, sandbox, backupID)
	}
	return m, nil
}

// verifyingReader hashes and counts the archive as it streams and turns
// EOF into ErrCorrupt unless size and digest match the manifest. The
// error sticks, so every later Read reports it too.
type verifyingReader struct {
	r    io.Reader
	h    hash.Hash
	n    int64
	size int64
	sum  string
	err  error
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.size {
		v.err = fmt.Errorf("%w: archive is longer than the manifest's %d bytes", ErrCorrupt, v.size)
		return 0, v.err
	}
	if err == io.EOF {
		switch got := hex.EncodeToString(v.h.Sum(nil)); {
		case v.n != v.size:
			v.err = fmt.Errorf("%w: archive has %d bytes, manifest says %d", ErrCorrupt, v.n, v.size)
		case got != v.sum:
			v.err = fmt.Errorf("%w: archive sha256 %s, manifest says %s", ErrCorrupt, got, v.sum)
		default:
			v.err = io.EOF
		}
		return n, v.err
	}
	return n, err
}
