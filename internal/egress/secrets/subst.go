package secrets

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/berthdev/berth/api"
)

// Placeholder syntax, the same as the gateway accepts in env values:
//
//	getSecret("NAME")   getSecret('NAME')   getSecret(NAME)
//
// with optional spaces inside the parentheses. In the URL path and query,
// where clients percent-encode quotes and sometimes parentheses, %22, %27,
// %28 and %29 stand for them, and the name may be percent-encoded (%2F).
var (
	headerPlaceholder = api.SecretPlaceholder
	urlPlaceholder    = regexp.MustCompile(`getSecret(?:\(|%28)(?:"|%22|'|%27)?([A-Za-z0-9_.%/-]*?)(?:"|%22|'|%27)?(?:\)|%29)`)
)

// Resolver is the part of Store the proxy uses.
type Resolver interface {
	Resolve(name, host string) (string, error)
}

// URLResolver resolves placeholders found in a URL's path or query: only
// secrets that opted in (Record.InURL) may go there. A Resolver without
// it gets every URL placeholder refused.
type URLResolver interface {
	ResolveInURL(name, host string) (string, error)
}

// Substitution is what Substitute put into a request.
type Substitution struct {
	Names []string
	// Sent holds every string written in place of a placeholder: the
	// values, and the forms they took (escaped in a URL, Basic credentials
	// re-encoded), so the proxy can keep all of them out of answers.
	Sent []string
}

// RefusalError says why a request was refused: which secret, for which host.
// It never holds a value.
type RefusalError struct {
	Secret string
	Host   string
	Err    error
}

func (e *RefusalError) Error() string {
	switch {
	case errors.Is(e.Err, ErrNotBound):
		return fmt.Sprintf("secret %q is not bound to host %q: the request was not sent", e.Secret, e.Host)
	case errors.Is(e.Err, ErrNotFound):
		return fmt.Sprintf("secret %q does not exist (request to host %q was not sent)", e.Secret, e.Host)
	case errors.Is(e.Err, ErrNotInURL):
		return fmt.Sprintf("secret %q may only be sent in headers, not in the URL (store it with \"inUrl\": true to allow that): the request to host %q was not sent", e.Secret, e.Host)
	case errors.Is(e.Err, ErrInvalidName):
		return fmt.Sprintf("placeholder names an invalid secret %q (request to host %q was not sent)", e.Secret, e.Host)
	}
	return fmt.Sprintf("secret %q for host %q could not be used: the request was not sent", e.Secret, e.Host)
}

func (e *RefusalError) Unwrap() error { return e.Err }

// HasPlaceholder tells whether a request carries a placeholder where
// Substitute would look (headers, path, query).
func HasPlaceholder(r *http.Request) bool {
	if urlPlaceholder.MatchString(r.URL.EscapedPath()) || urlPlaceholder.MatchString(r.URL.RawQuery) {
		return true
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			if headerPlaceholder.MatchString(v) {
				return true
			}
			if isAuth(k) && basicPlaceholder(v) {
				return true
			}
		}
	}
	return false
}

// FirstPlaceholder names the first secret a request's headers or URL
// reference ("" when none does, or only inside Basic credentials): what a
// refusal of the whole request names for the operator.
func FirstPlaceholder(r *http.Request) string {
	for _, v := range []string{r.URL.EscapedPath(), r.URL.RawQuery} {
		if m := urlPlaceholder.FindStringSubmatch(v); m != nil {
			if n, err := url.PathUnescape(m[1]); err == nil && n != "" {
				return n
			}
		}
	}
	keys := make([]string, 0, len(r.Header))
	for k := range r.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same name for the same request
	for _, k := range keys {
		for _, v := range r.Header[k] {
			if names := api.PlaceholderNames(v); len(names) > 0 {
				return names[0]
			}
		}
	}
	return ""
}

// Substitute replaces the placeholders of r headed to host with the values
// res gives, in place. Headers (Authorization's Basic credentials are decoded,
// substituted and re-encoded), the path and the query (only secrets res
// allows in URLs, see URLResolver) are rewritten; bodies are not. It returns
// what it substituted, or a *RefusalError for the first placeholder that
// cannot be used, in which case r must not be sent. Values are looked up for
// this request only.
func Substitute(r *http.Request, host string, res Resolver) (Substitution, error) {
	s := substituter{host: host, res: res, values: map[string]string{}}
	sub, err := s.substitute(r)
	if err != nil {
		return Substitution{}, err
	}
	return sub, nil
}

func (s *substituter) substitute(r *http.Request) (Substitution, error) {
	for k, vs := range r.Header {
		for i, v := range vs {
			if isAuth(k) {
				nv, err := s.basic(v)
				if err != nil {
					return Substitution{}, err
				}
				v = nv
			}
			nv, err := s.replace(v, headerPlaceholder, headerName, identity)
			if err != nil {
				return Substitution{}, err
			}
			vs[i] = nv
		}
	}
	s.inURL = true
	if p := r.URL.EscapedPath(); urlPlaceholder.MatchString(p) {
		np, err := s.replace(p, urlPlaceholder, urlName, url.PathEscape)
		if err != nil {
			return Substitution{}, err
		}
		dec, err := url.PathUnescape(np)
		if err != nil {
			return Substitution{}, err
		}
		r.URL.Path, r.URL.RawPath = dec, np
	}
	if q := r.URL.RawQuery; urlPlaceholder.MatchString(q) {
		nq, err := s.replace(q, urlPlaceholder, urlName, url.QueryEscape)
		if err != nil {
			return Substitution{}, err
		}
		r.URL.RawQuery = nq
	}
	return Substitution{Names: s.used, Sent: s.sent}, nil
}

func identity(v string) string { return v }

type substituter struct {
	host   string
	res    Resolver
	inURL  bool              // placeholders now come from the URL
	values map[string]string // this request's values only
	urlOK  map[string]bool   // names res allowed in URLs
	used   []string
	sent   []string
}

func headerName(m []string) string { return api.PlaceholderName(m) }

func urlName(m []string) string {
	n, err := url.PathUnescape(m[1])
	if err != nil {
		return m[1]
	}
	return n
}

func (s *substituter) replace(in string, re *regexp.Regexp, name func([]string) string, escape func(string) string) (string, error) {
	var firstErr error
	out := re.ReplaceAllStringFunc(in, func(m string) string {
		n := name(re.FindStringSubmatch(m))
		v, err := s.value(n)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return m
		}
		out := escape(v)
		s.sent = append(s.sent, v, out)
		return out
	})
	return out, firstErr
}

func (s *substituter) value(name string) (string, error) {
	if s.inURL && !s.urlOK[name] {
		// Asked once per name: the store says whether it may go in a URL.
		if err := ValidName(name); err != nil {
			return "", &RefusalError{Secret: name, Host: s.host, Err: err}
		}
		ur, ok := s.res.(URLResolver)
		if !ok {
			return "", &RefusalError{Secret: name, Host: s.host, Err: ErrNotInURL}
		}
		v, err := ur.ResolveInURL(name, s.host)
		if err != nil {
			return "", &RefusalError{Secret: name, Host: s.host, Err: err}
		}
		if s.urlOK == nil {
			s.urlOK = map[string]bool{}
		}
		s.urlOK[name] = true
		if _, seen := s.values[name]; !seen {
			s.used = append(s.used, name)
		}
		s.values[name] = v
		return v, nil
	}
	if v, ok := s.values[name]; ok {
		return v, nil
	}
	if err := ValidName(name); err != nil {
		return "", &RefusalError{Secret: name, Host: s.host, Err: err}
	}
	v, err := s.res.Resolve(name, s.host)
	if err != nil {
		return "", &RefusalError{Secret: name, Host: s.host, Err: err}
	}
	s.values[name] = v
	s.used = append(s.used, name)
	return v, nil
}

func isAuth(header string) bool {
	return header == "Authorization" || header == "Proxy-Authorization"
}

// basic substitutes inside Basic credentials: clients encode "user:pass"
// before the proxy sees it, so the placeholder is only visible decoded.
func (s *substituter) basic(v string) (string, error) {
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return v, nil
	}
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil || !headerPlaceholder.Match(dec) {
		return v, nil
	}
	nd, err := s.replace(string(dec), headerPlaceholder, headerName, identity)
	if err != nil {
		return "", err
	}
	enc := base64.StdEncoding.EncodeToString([]byte(nd))
	s.sent = append(s.sent, enc)
	return scheme + " " + enc, nil
}

func basicPlaceholder(v string) bool {
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return false
	}
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	return err == nil && headerPlaceholder.Match(dec)
}
