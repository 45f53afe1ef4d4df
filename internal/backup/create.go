package backup

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/archive/zstdtar"
	"github.com/berthdev/berth/internal/blob"
)

// errUploadEnded is what the archiver sees when the upload stopped reading.
var errUploadEnded = errors.New("backup: upload ended")

// Options tune Create.
type Options struct {
	TTL      time.Duration    // 0 means DefaultTTL
	Progress archive.Progress // cumulative file content bytes archived
	Now      func() time.Time // clock for the id and CreatedAt; nil means time.Now
	Rescued  *Rescue          // makes a rescued backup (Manifest.Rescued)
}

// Create archives dir (which must not change meanwhile: the container is
// paused or stopped) and stores it as a new backup of sandbox. Archiving,
// hashing and uploading run as one stream: nothing is staged on disk.
// The manifest is written only after the archive upload completed, so an
// interrupted Create never produces a backup.
func Create(ctx context.Context, store blob.Store, sandbox, dir string, opts Options) (Manifest, error) {
	if err := checkSandbox(sandbox); err != nil {
		return Manifest{}, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	ttl := opts.TTL
	if ttl == 0 {
		ttl = DefaultTTL
	}
	m := Manifest{BackupID: NewID(now()), Sandbox: sandbox, Format: Format, TTL: ttl, Rescued: opts.Rescued}

	parent := ctx
	ctx, stopArchiver := context.WithCancel(ctx)
	defer stopArchiver()
	pr, pw := io.Pipe()
	sum := sha256.New()
	type result struct {
		stats archive.Stats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		// Hashing happens on the producer side, so the digest covers exactly
		// the bytes handed to the store.
		st, err := zstdtar.Write(ctx, io.MultiWriter(sum, pw), dir, opts.Progress)
		pw.CloseWithError(err) // nil: the reader sees EOF
		done <- result{st, err}
	}()

	key := ArchiveKey(sandbox, m.BackupID)
	size, putErr := store.Put(ctx, key, pr)
	// If the store gave up early, unblock the archiver and stop it.
	pr.CloseWithError(errUploadEnded)
	stopArchiver()
	res := <-done
	// Whichever side failed first is the cause; the other side's error is
	// then just the echo of the torn pipe.
	archiverEcho := errors.Is(res.err, errUploadEnded) || (errors.Is(res.err, context.Canceled) && parent.Err() == nil)
	switch {
	case putErr != nil && (res.err == nil || archiverEcho):
		return Manifest{}, fmt.Errorf("backup: upload: %w", putErr)
	case res.err != nil:
		_ = store.Delete(context.WithoutCancel(parent), key) // in case the store kept anything
		return Manifest{}, fmt.Errorf("backup: archive %s: %w", dir, res.err)
	}
	m.Size = size
	m.SHA256 = hex.EncodeToString(sum.Sum(nil))
	m.Files = res.stats.Files
	if res.stats.Sparse > 0 {
		m.Format = FormatSparse
	}
	m.Bytes = res.stats.Bytes
	m.CreatedAt = now().UTC()

	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Manifest{}, err
	}
	if _, err := store.Put(parent, ManifestKey(sandbox, m.BackupID), bytes.NewReader(body)); err != nil {
		// Without a manifest the archive is an orphan; remove it now rather
		// than waiting for Prune.
		_ = store.Delete(context.WithoutCancel(parent), key)
		return Manifest{}, fmt.Errorf("backup: write manifest: %w", err)
	}
	return m, nil
}
