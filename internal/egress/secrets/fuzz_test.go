package secrets

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

const (
	fuzzHost  = "api.example.com"
	fuzzValue = "VALUE-s3cr3t"
)

// fuzzResolver knows KEY (headers only) and URLKEY (URLs too), both bound
// to fuzzHost only.
type fuzzResolver struct{}

func (fuzzResolver) Resolve(name, host string) (string, error) {
	switch {
	case name != "KEY" && name != "URLKEY":
		return "", ErrNotFound
	case host != fuzzHost:
		return "", ErrNotBound
	}
	return fuzzValue, nil
}

func (r fuzzResolver) ResolveInURL(name, host string) (string, error) {
	if name == "KEY" {
		return "", ErrNotInURL
	}
	return r.Resolve(name, host)
}

// FuzzSubstitute: placeholders anywhere in a request's path, query and
// headers (Basic credentials included) are substituted or refused without
// a panic; a request to a host the secret is not bound to never carries
// the value, whatever the spelling; and a request with no placeholder is
// left as it was.
func FuzzSubstitute(f *testing.F) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(`user:getSecret("KEY")`))
	f.Add("v1/getSecret(URLKEY)/x", "k=getSecret%28%22URLKEY%22%29", `Bearer getSecret("KEY")`, basic)
	f.Add("getSecret%28KEY%29", "", `getSecret( 'KEY' ) getSecret(KEY)`, "Basic !!!")
	f.Add("", "a=getSecret(%2F..%2FKEY)", "getSecret(\"\")", "basic "+base64.StdEncoding.EncodeToString([]byte("getSecret(URLKEY)")))
	f.Add("plain/path", "q=1", "no placeholder", "")
	f.Fuzz(func(t *testing.T, path, query, header, auth string) {
		for _, host := range []string{fuzzHost, "evil.example"} {
			u, err := url.Parse("http://" + host + "/" + path + "?" + query)
			if err != nil {
				return
			}
			r := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
			r.Header.Set("X-Token", header)
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			before := dump(r)
			had := HasPlaceholder(r)
			sub, err := Substitute(r, host, fuzzResolver{})
			after := dump(r)
			if !had && (len(sub.Names) > 0 || err != nil || after != before) {
				t.Fatalf("%s: no placeholder seen, yet %v %v and %q became %q", host, sub.Names, err, before, after)
			}
			if host != fuzzHost && (len(sub.Sent) > 0 || strings.Contains(after, fuzzValue)) {
				t.Fatalf("%s: the value went to an unbound host: %q (sent %q, err %v)", host, after, sub.Sent, err)
			}
			if err != nil {
				var re *RefusalError
				if !errorsAs(err, &re) || strings.Contains(err.Error(), fuzzValue) {
					t.Fatalf("refusal %T %v", err, err)
				}
			}
		}
	})
}

// dump is what the request would carry: its URL and headers, Basic
// credentials decoded.
func dump(r *http.Request) string {
	var b strings.Builder
	b.WriteString(r.URL.String())
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys) // one dump per request, whatever the map's order
	for _, k := range keys {
		for _, v := range r.Header[k] {
			b.WriteString("\n" + k + ": " + v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
					b.WriteString(" [" + string(dec) + "]")
				}
			}
		}
	}
	return b.String()
}

func errorsAs(err error, re **RefusalError) bool {
	e, ok := err.(*RefusalError)
	*re = e
	return ok
}
