// Package backup stores workspace snapshots in a blob.Store and brings
// them back. Layout per sandbox:
//
//	<sandbox>/<backupId>.tar.zst        the archive (see package archive)
//	<sandbox>/<backupId>.manifest.json  written last: the backup's existence
//	<sandbox>/<backupId>.bad.json       the archive failed to restore (MarkBad)
//	<sandbox>/destroyed.json            tombstone: the sandbox is gone
//
// A backup exists only once its manifest exists. An upload that dies
// midway leaves at most an archive without manifest, which is never listed
// or restored and which Prune removes after OrphanAge.
package backup

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/archive"
	"github.com/berthdev/berth/internal/blob"
)

const (
	archiveSuffix  = ".tar.zst"
	manifestSuffix = ".manifest.json"
	badSuffix      = ".bad.json"
	tombstoneName  = "destroyed.json"
	idTimeLayout   = "20060102T150405Z"

	// Format names the archive encoding, so a future format can coexist.
	Format = "tar+zstd/v1"
	// FormatSparse is Format plus files stored without their holes. Only
	// backups that hold such a file get it, so a worker that predates it
	// refuses them (as not ours) instead of restoring a wrong file, and
	// still restores every other backup.
	FormatSparse = "tar+zstd/v2"
	// DefaultTTL applies when Options.TTL is zero.
	DefaultTTL = 7 * 24 * time.Hour
	// OrphanAge is how long an archive without manifest may be an upload
	// still in flight; after that Prune deletes it.
	OrphanAge = time.Hour
	// maxManifestSize bounds what we read from a manifest object.
	maxManifestSize = 1 << 20
)

var (
	// ErrCorrupt means the stored archive does not match its manifest or
	// cannot be decoded: restoring it again will not help.
	ErrCorrupt = errors.New("backup: archive is corrupt")
	// ErrNoBackup means the sandbox has no (complete) backup.
	ErrNoBackup = fmt.Errorf("backup: no backup: %w", blob.ErrNotFound)
	// ErrInvalid marks a bad sandbox name or backup id.
	ErrInvalid = errors.New("backup: invalid argument")
)

// Manifest describes one complete backup.
type Manifest struct {
	BackupID  string        `json:"backupId"`
	Sandbox   string        `json:"sandbox"`
	Format    string        `json:"format"`
	Size      int64         `json:"size"`   // bytes of the compressed archive
	SHA256    string        `json:"sha256"` // of the compressed archive, hex
	Files     int64         `json:"files"`
	Bytes     int64         `json:"bytes"` // file content bytes before compression
	CreatedAt time.Time     `json:"createdAt"`
	TTL       time.Duration `json:"-"`
	// Bad is set by List for a backup that failed to restore as corrupt
	// (MarkBad); BadReason says why. Not part of the stored manifest.
	Bad       bool   `json:"-"`
	BadReason string `json:"-"`
	// Rescued marks a backup of a volume a host still held after its
	// sandbox had started elsewhere from an older backup (a consented
	// rollback): the work the rollback left behind. It is never restored
	// unless named, does not count among the kept ones and expires by
	// its TTL.
	Rescued *Rescue `json:"rescued,omitempty"`
}

// Rescue says where a rescued backup's volume was and when its host was
// lost.
type Rescue struct {
	Host   string    `json:"host"`
	LostAt time.Time `json:"lostAt"`
}

// MarshalJSON writes TTL as a Go duration string ("168h0m0s"), which
// humans and other languages read more easily than nanoseconds.
func (m Manifest) MarshalJSON() ([]byte, error) {
	type plain Manifest // drops the methods, so no recursion
	return json.Marshal(struct {
		plain
		TTL string `json:"ttl"`
	}{plain(m), m.TTL.String()})
}

func (m *Manifest) UnmarshalJSON(b []byte) error {
	type plain Manifest
	var v struct {
		plain
		TTL string `json:"ttl"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Manifest(v.plain)
	if v.TTL != "" {
		ttl, err := time.ParseDuration(v.TTL)
		if err != nil {
			return fmt.Errorf("ttl: %w", err)
		}
		m.TTL = ttl
	}
	return nil
}

// ExpiresAt is when the backup may be pruned (unless it is among the
// newest kept ones). The zero time means never.
func (m Manifest) ExpiresAt() time.Time {
	if m.TTL <= 0 {
		return time.Time{}
	}
	return m.CreatedAt.Add(m.TTL)
}

// NewID returns a backup id that sorts by creation time, with a random
// suffix so two backups in the same second do not collide.
func NewID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format(idTimeLayout) + "-" + hex.EncodeToString(b[:])
}

// ArchiveKey, ManifestKey and BadKey are the blob keys of a backup.
func ArchiveKey(sandbox, id string) string  { return sandbox + "/" + id + archiveSuffix }
func ManifestKey(sandbox, id string) string { return sandbox + "/" + id + manifestSuffix }
func BadKey(sandbox, id string) string      { return sandbox + "/" + id + badSuffix }

func checkSandbox(sandbox string) error {
	if !api.ValidSandboxName(sandbox) {
		return blob.Permanent(fmt.Errorf("%w: sandbox name %q", ErrInvalid, sandbox))
	}
	return nil
}

func checkID(id string) error {
	if !api.ValidBackupID(id) {
		return blob.Permanent(fmt.Errorf("%w: backup id %q", ErrInvalid, id))
	}
	return nil
}

// parseKey splits "<sandbox>/<id><suffix>" for one of our suffixes.
func parseKey(key string) (sandbox, id, suffix string, ok bool) {
	sandbox, rest, found := strings.Cut(key, "/")
	if !found || checkSandbox(sandbox) != nil {
		return "", "", "", false
	}
	for _, suffix = range []string{archiveSuffix, manifestSuffix, badSuffix} {
		if id, found = strings.CutSuffix(rest, suffix); found && checkID(id) == nil {
			return sandbox, id, suffix, true
		}
	}
	return "", "", "", false
}

// IsPermanent reports errors a retry cannot fix: corrupt archives, files
// too large to archive, bad arguments and the store's permanent errors (credentials, missing
// bucket, missing backup).
func IsPermanent(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, archive.ErrTooLarge) || blob.IsPermanent(err)
}
