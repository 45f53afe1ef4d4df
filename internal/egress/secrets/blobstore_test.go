package secrets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blob"
)

func newBlobStore(t *testing.T) (*BlobStore, blob.Store) {
	bs, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewBlobStore(bs, []byte(material))
	if err != nil {
		t.Fatal(err)
	}
	return s, bs
}

func TestBlobStorePutGetListResolveRotateDelete(t *testing.T) {
	s, bs := newBlobStore(t)
	rec, err := s.Put("github/token", "ghp_BLOBvalue1", []string{"API.github.com"})
	if err != nil || rec.Version != 1 || rec.Hosts[0] != "api.github.com" {
		t.Fatalf("put: %+v %v", rec, err)
	}
	// A second store over the same blobs (another gateway, a worker) sees it.
	other, err := NewBlobStore(bs, []byte(material))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := other.Resolve("github/token", "api.github.com"); err != nil || v != "ghp_BLOBvalue1" {
		t.Fatalf("resolve from another store: %q %v", v, err)
	}
	if _, err := other.Resolve("github/token", "evil.example"); !errors.Is(err, ErrNotBound) {
		t.Fatalf("unbound host: %v", err)
	}
	rec, err = s.Put("github/token", "ghp_BLOBvalue2", []string{"api.github.com"})
	if err != nil || rec.Version != 2 {
		t.Fatalf("rotate: %+v %v", rec, err)
	}
	if v, _ := other.Resolve("github/token", "api.github.com"); v != "ghp_BLOBvalue2" {
		t.Fatalf("rotation not seen: %q", v)
	}
	if got, err := other.Get("github/token"); err != nil || got.Version != 2 {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, err := other.List()
	if err != nil || len(list) != 1 || list[0].Name != "github/token" {
		t.Fatalf("list: %+v %v", list, err)
	}
	// Encrypted at rest: the object holds no value in clear.
	r, err := bs.Get(context.Background(), BlobKey("github/token"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(r)
	r.Close()
	if strings.Contains(string(raw), "BLOBvalue") {
		t.Fatal("the stored object holds the value in clear")
	}
	// Another key cannot read it.
	wrong, _ := NewBlobStore(bs, []byte("another-key-material-0123456789"))
	if _, err := wrong.Resolve("github/token", "api.github.com"); err == nil {
		t.Fatal("a wrong key decrypted the value")
	}
	if err := s.Delete("github/token"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Resolve("github/token", "api.github.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	if err := s.Delete("github/token"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

// Backups share the blob store. Retention (backup.PruneAll, what the
// worker's retention loop runs) and backup listing must never touch the
// secrets, even for a destroyed sandbox named "secrets" whose backups live
// under the same prefix.
func TestBackupRetentionNeverTouchesSecrets(t *testing.T) {
	s, bs := newBlobStore(t)
	ctx := context.Background()
	for _, n := range []string{"github", "a/b.c-d", "x"} {
		if _, err := s.Put(n, "v-"+n, []string{"api.github.com"}); err != nil {
			t.Fatal(err)
		}
	}
	sealed := SealedKey("egress-ca", "sb")
	if err := s.PutSealed(sealed, []byte("ca")); err != nil {
		t.Fatal(err)
	}
	if err := backup.MarkDestroyed(ctx, bs, "secrets", time.Now().Add(-1000*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ms, err := backup.List(ctx, bs, "secrets"); err != nil || len(ms) != 0 {
		t.Fatalf("backup list of sandbox \"secrets\": %+v %v", ms, err)
	}
	far := time.Now().Add(10000 * time.Hour)
	if _, err := backup.PruneAll(ctx, bs, 0, far); err != nil {
		t.Fatal(err)
	}
	if _, err := backup.Prune(ctx, bs, "secrets", 0, far); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("secrets after retention: %+v %v", list, err)
	}
	if v, err := s.Resolve("github", "api.github.com"); err != nil || v != "v-github" {
		t.Fatalf("resolve after retention: %q %v", v, err)
	}
	if v, err := s.GetSealed(sealed); err != nil || string(v) != "ca" {
		t.Fatalf("sealed object after retention: %q %v", v, err)
	}
}

// A sealed object opens only with the store's key and only under its own
// key; its bytes in the blob store are not the plaintext.
func TestSealedObjects(t *testing.T) {
	dir := t.TempDir()
	s, err := NewFileStore(dir, []byte("test-berth-secret-material"))
	if err != nil {
		t.Fatal(err)
	}
	k, other := SealedKey("ca", "sb-1"), SealedKey("ca", "sb-2")
	if _, err := s.GetSealed(k); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	plain := []byte("-----BEGIN EC PRIVATE KEY----- not really")
	if err := s.PutSealed(k, plain); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetSealed(k)
	if err != nil || string(got) != string(plain) {
		t.Fatalf("%q %v", got, err)
	}
	wrong, _ := NewFileStore(dir, []byte("another-material-0123456789"))
	if _, err := wrong.GetSealed(k); err == nil {
		t.Fatal("opened with another key")
	}
	raw, err := s.store.Get(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(raw)
	raw.Close()
	if strings.Contains(string(b), "PRIVATE") {
		t.Fatal("stored in clear")
	}
	if _, err := s.store.Put(context.Background(), other, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSealed(other); err == nil {
		t.Fatal("an object copied under another key opened")
	}
	if recs, err := s.List(); err != nil || len(recs) != 0 {
		t.Fatalf("sealed objects listed as secrets: %v %v", recs, err)
	}
	if err := s.DeleteSealed(k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSealed(k); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}
