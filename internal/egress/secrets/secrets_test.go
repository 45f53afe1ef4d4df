package secrets

import (
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const material = "0123456789abcdef-berth-secret"

func newStore(t *testing.T) (*BlobStore, string) {
	dir := filepath.Join(t.TempDir(), "secrets")
	s, err := NewFileStore(dir, []byte(material))
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestStorePutListResolveRotateDelete(t *testing.T) {
	s, dir := newStore(t)
	rec, err := s.Put("github/token", "ghp_FIRSTvalue", []string{"API.github.com", "*.githubusercontent.com"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 1 || rec.Hosts[0] != "api.github.com" {
		t.Fatalf("record %+v", rec)
	}
	if v, err := s.Resolve("github/token", "api.github.com:443"); err != nil || v != "ghp_FIRSTvalue" {
		t.Fatalf("resolve: %q %v", v, err)
	}
	if v, err := s.Resolve("github/token", "raw.githubusercontent.com"); err != nil || v != "ghp_FIRSTvalue" {
		t.Fatalf("wildcard resolve: %q %v", v, err)
	}
	if _, err := s.Resolve("github/token", "evil.example"); !errors.Is(err, ErrNotBound) {
		t.Fatalf("unbound host: %v", err)
	}
	if _, err := s.Resolve("nope", "api.github.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	rec2, _ := s.Put("github/token", "ghp_SECONDvalue", []string{"api.github.com"})
	if rec2.Version != 2 || !rec2.CreatedAt.Equal(rec.CreatedAt) {
		t.Fatalf("rotation record %+v", rec2)
	}
	if v, _ := s.Resolve("github/token", "api.github.com"); v != "ghp_SECONDvalue" {
		t.Fatalf("after rotation: %q", v)
	}
	list, _ := s.List()
	if len(list) != 1 || list[0].Name != "github/token" {
		t.Fatalf("list %+v", list)
	}
	// Encrypted at rest: the value is in no file of the store.
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "SECONDvalue") || strings.Contains(string(b), "FIRSTvalue") {
			t.Errorf("value in clear in %s", p)
		}
		return nil
	})
	if err := s.Delete("github/token"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve("github/token", "api.github.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if err := s.Delete("github/token"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
}

func TestStoreRejects(t *testing.T) {
	s, _ := newStore(t)
	for _, n := range []string{"", "../x", "a/../b", "a//b", "/a", "-a", strings.Repeat("a", 129), "a b", `a"b`} {
		if _, err := s.Put(n, "v", []string{"a.com"}); !errors.Is(err, ErrInvalidName) {
			t.Errorf("name %q: %v", n, err)
		}
	}
	if _, err := s.Put("x", "a\r\nInjected: 1", []string{"a.com"}); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("control chars: %v", err)
	}
	if _, err := s.Put("x", "v", nil); !errors.Is(err, ErrInvalidHosts) {
		t.Errorf("no hosts: %v", err)
	}
	if _, err := s.Put("x", "v", []string{"1.2.3.4"}); !errors.Is(err, ErrInvalidHosts) {
		t.Errorf("ip host: %v", err)
	}
}

func TestStoreWrongKeyOrTamperedFileDoesNotDecrypt(t *testing.T) {
	s, dir := newStore(t)
	s.Put("tok", "value-1", []string{"a.example.com"})
	other, _ := NewFileStore(dir, []byte("another-key-material-000"))
	if _, err := other.Resolve("tok", "a.example.com"); err == nil {
		t.Fatal("decrypted with the wrong key")
	}
	p := filepath.Join(dir, BlobKey("tok"))
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "a.example.com", "evil.example", 1)), 0o600)
	if _, err := s.Resolve("tok", "evil.example"); err == nil || errors.Is(err, ErrNotBound) {
		t.Fatalf("rebound file decrypted: %v", err)
	}
}

func TestSubstitute(t *testing.T) {
	s, _ := newStore(t)
	s.PutWith("tok", "s3cr/t v+1", []string{"api.example.com"}, Options{InURL: true})
	s.PutWith("db/pass", "hunter2", []string{"api.example.com"}, Options{InURL: true})
	basic := base64.StdEncoding.EncodeToString([]byte(`user:getSecret("db/pass")`))
	r, _ := http.NewRequest("GET", `https://api.example.com/v1/getSecret(%22tok%22)/x?key=getSecret("tok")&p=getSecret(db%2Fpass)`, nil)
	r.Header.Set("Authorization", `Bearer getSecret("tok")`)
	r.Header.Set("X-Two", `getSecret('tok'):getSecret( db/pass )`)
	r.Header.Set("Proxy-Authorization", "Basic "+basic)
	if !HasPlaceholder(r) {
		t.Fatal("placeholder not seen")
	}
	used, err := Substitute(r, "api.example.com", s)
	if err != nil {
		t.Fatal(err)
	}
	if len(used.Names) != 2 {
		t.Errorf("used %v", used.Names)
	}
	for _, want := range []string{"s3cr/t v+1", "hunter2", "s3cr%2Ft%20v+1", "s3cr%2Ft+v%2B1", base64.StdEncoding.EncodeToString([]byte("user:hunter2"))} {
		if !slices.Contains(used.Sent, want) {
			t.Errorf("%q is not among the forms sent", want)
		}
	}
	if got := r.Header.Get("Authorization"); got != "Bearer s3cr/t v+1" {
		t.Errorf("authorization %q", got)
	}
	if got := r.Header.Get("X-Two"); got != "s3cr/t v+1:hunter2" {
		t.Errorf("x-two %q", got)
	}
	if got := r.Header.Get("Proxy-Authorization"); got != "Basic "+base64.StdEncoding.EncodeToString([]byte("user:hunter2")) {
		t.Errorf("basic %q", got)
	}
	if r.URL.Path != "/v1/s3cr/t v+1/x" || r.URL.EscapedPath() != "/v1/s3cr%2Ft%20v+1/x" {
		t.Errorf("path %q %q", r.URL.Path, r.URL.EscapedPath())
	}
	if q := r.URL.Query(); q.Get("key") != "s3cr/t v+1" || q.Get("p") != "hunter2" {
		t.Errorf("query %q", r.URL.RawQuery)
	}
}

// A secret stored without InURL goes into headers only: in the path or
// the query it is refused, even when a header of the same request may
// carry it.
func TestSubstituteKeepsHeaderOnlySecretsOutOfURLs(t *testing.T) {
	s, _ := newStore(t)
	s.Put("tok", "the-value", []string{"api.example.com"})
	for _, u := range []string{`https://api.example.com/x?key=getSecret("tok")`, `https://api.example.com/getSecret(%22tok%22)`} {
		r, _ := http.NewRequest("GET", u, nil)
		r.Header.Set("Authorization", `Bearer getSecret("tok")`)
		_, err := Substitute(r, "api.example.com", s)
		if !errors.Is(err, ErrNotInURL) || strings.Contains(err.Error(), "the-value") {
			t.Errorf("%s: %v", u, err)
		}
		if strings.Contains(r.URL.String(), "the-value") {
			t.Errorf("%s: the URL took the value: %s", u, r.URL)
		}
	}
	r, _ := http.NewRequest("GET", "https://api.example.com/x", nil)
	r.Header.Set("Authorization", `Bearer getSecret("tok")`)
	if _, err := Substitute(r, "api.example.com", s); err != nil || r.Header.Get("Authorization") != "Bearer the-value" {
		t.Errorf("header: %v %q", err, r.Header.Get("Authorization"))
	}
}

func TestSubstituteRefusesUnboundUnknownAndSaysWhich(t *testing.T) {
	s, _ := newStore(t)
	s.Put("tok", "the-value", []string{"api.example.com"})
	for _, c := range []struct{ header, host, want string }{
		{`Bearer getSecret("tok")`, "evil.example", `secret "tok" is not bound to host "evil.example"`},
		{`Bearer getSecret("gone")`, "api.example.com", `secret "gone" does not exist`},
		{`Bearer getSecret("../x")`, "api.example.com", `invalid secret "../x"`},
	} {
		r, _ := http.NewRequest("GET", "https://"+c.host+"/", nil)
		r.Header.Set("Authorization", c.header)
		_, err := Substitute(r, c.host, s)
		var re *RefusalError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "the-value") {
			t.Errorf("%s → %s: %v", c.header, c.host, err)
		}
	}
}
