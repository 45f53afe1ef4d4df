package secrets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/berthdev/berth/internal/blob"
)

const (
	oldKey = "the-deployment-secret-of-old-days"
	newKey = "a-secrets-key-of-its-own-32-bytes-or-more"
)

func openWith(t *testing.T, bs blob.Store, k Keys) *BlobStore {
	t.Helper()
	s, err := OpenBlobStore(bs, k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readObject(t *testing.T, bs blob.Store, key string) []byte {
	t.Helper()
	r, err := bs.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return b
}

// A store keyed by the deployment secret moves to a key of its own: what
// the old key sealed still opens, rekey seals it under the new key, and
// then the old key is needed no more (and alone opens nothing).
func TestSecretStoreKeyRotation(t *testing.T) {
	bs, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	before := openWith(t, bs, Keys{Current: []byte(oldKey)})
	if _, err := before.Put("gh", "ghp_ROTATEvalue", []string{"api.github.com"}); err != nil {
		t.Fatal(err)
	}
	if err := before.PutSealed(SealedKey("ca", "sb-1"), []byte("ca-key-bytes")); err != nil {
		t.Fatal(err)
	}

	keys, err := StoreKeys(newKey, "", oldKey)
	if err != nil {
		t.Fatal(err)
	}
	rotated := openWith(t, bs, keys)
	if v, err := rotated.Resolve("gh", "api.github.com"); err != nil || v != "ghp_ROTATEvalue" {
		t.Fatalf("an object sealed under the retired key: %q %v", v, err)
	}
	use, err := rotated.Keys()
	if err != nil {
		t.Fatal(err)
	}
	oldID := before.ring.current().id
	if use.Current == oldID || use.Secrets[oldID] != 1 || use.Sealed[oldID] != 1 {
		t.Fatalf("key use before rekey: %+v (old id %s)", use, oldID)
	}
	n, err := rotated.Rekey()
	if err != nil || n != 2 {
		t.Fatalf("rekey: %d %v, want 2 objects", n, err)
	}
	if use, _ = rotated.Keys(); use.Secrets[oldID]+use.Sealed[oldID] != 0 || use.Secrets[use.Current] != 1 || use.Sealed[use.Current] != 1 {
		t.Fatalf("key use after rekey: %+v", use)
	}
	if rec, _ := rotated.Get("gh"); rec.Version != 1 {
		t.Fatalf("rekey changed the version: %d", rec.Version)
	}

	onlyNew := openWith(t, bs, Keys{Current: []byte(newKey)})
	if v, err := onlyNew.Resolve("gh", "api.github.com"); err != nil || v != "ghp_ROTATEvalue" {
		t.Fatalf("after rekey, the new key alone: %q %v", v, err)
	}
	if b, err := onlyNew.GetSealed(SealedKey("ca", "sb-1")); err != nil || string(b) != "ca-key-bytes" {
		t.Fatalf("a sealed object after rekey: %q %v", b, err)
	}
	onlyOld := openWith(t, bs, Keys{Current: []byte(oldKey)})
	if _, err := onlyOld.Resolve("gh", "api.github.com"); err == nil || !strings.Contains(err.Error(), "BERTH_SECRETS_RETIRED_KEYS") {
		t.Fatalf("the old key alone after rekey: %v, want an error naming the missing key", err)
	}
}

// An older object put back in the store (the value or hosts from before a
// rotation: sealed, so valid) is refused by a process that has seen a
// newer version, even across a delete and a new secret of the same name.
func TestSecretStoreRefusesAnOlderObjectPutBack(t *testing.T) {
	bs, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := openWith(t, bs, Keys{Current: []byte(newKey)})
	if _, err := s.Put("gh", "ghp_OLDvalue", []string{"api.github.com", "old.example"}); err != nil {
		t.Fatal(err)
	}
	v1 := readObject(t, bs, BlobKey("gh"))
	if _, err := s.Put("gh", "ghp_NEWvalue", []string{"api.github.com"}); err != nil {
		t.Fatal(err)
	}
	reader := openWith(t, bs, Keys{Current: []byte(newKey)}) // a worker
	if v, _ := reader.Resolve("gh", "api.github.com"); v != "ghp_NEWvalue" {
		t.Fatalf("resolve: %q", v)
	}
	if _, err := bs.Put(context.Background(), BlobKey("gh"), bytes.NewReader(v1)); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*BlobStore{s, reader} {
		if v, err := st.Resolve("gh", "old.example"); !errors.Is(err, ErrRolledBack) || v != "" {
			t.Fatalf("the put-back version 1 resolved: %q %v", v, err)
		}
	}
	// Deleted and set again: the new secret goes on from version 2.
	if err := s.Delete("gh"); err != nil && !errors.Is(err, ErrRolledBack) {
		t.Fatal(err)
	}
	_ = bs.Delete(context.Background(), BlobKey("gh"))
	rec, err := s.Put("gh", "ghp_AGAIN", []string{"api.github.com"})
	if err != nil || rec.Version != 3 {
		t.Fatalf("set again after a delete: %+v %v, want version 3", rec, err)
	}
}

// A damaged object (a nonce of the wrong size) is an error, not a panic of
// the process that reads it.
func TestSecretStoreDamagedNonceIsAnError(t *testing.T) {
	bs, err := blob.OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := openWith(t, bs, Keys{Current: []byte(newKey)})
	if _, err := s.Put("gh", "ghp_value", []string{"api.github.com"}); err != nil {
		t.Fatal(err)
	}
	obj := readObject(t, bs, BlobKey("gh"))
	obj = bytes.Replace(obj, []byte(`"nonce":"`), []byte(`"nonce":"AAAA`), 1)
	if _, err := bs.Put(context.Background(), BlobKey("gh"), bytes.NewReader(obj)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve("gh", "api.github.com"); err == nil {
		t.Fatal("a damaged nonce resolved")
	}
}

func TestStoreKeysConfiguration(t *testing.T) {
	if _, err := StoreKeys("", "", oldKey); err == nil || !strings.Contains(err.Error(), "BERTH_SECRETS_KEY is required") {
		t.Fatalf("no key: %v", err)
	}
	if _, err := StoreKeys("short-key-of-20-byte", "", oldKey); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Fatalf("a short key: %v", err)
	}
	if _, err := StoreKeys(newKey, "tiny", oldKey); err == nil {
		t.Fatal("a short retired key was taken")
	}
	k, err := StoreKeys(newKey, " retired-key-number-one , ", oldKey)
	if err != nil || string(k.Current) != newKey || len(k.Retired) != 2 || string(k.Retired[1]) != oldKey {
		t.Fatalf("keys: %v %v", k, err)
	}
}
