package api

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Env values land on the sandbox's event stream, and workflow history is
// forever: a raw credential must be refused before it is recorded. These
// checks are heuristics tuned to refuse the common credential shapes while
// letting ordinary configuration through.
//
// Decisions on the borderline cases:
//   - getSecret(...) placeholders are always allowed (their argument is a
//     secret's name, checked like any literal so a key cannot hide inside).
//   - UUIDs are allowed: they are usually tenant/project ids, and at 36 chars
//     of hex and dashes their entropy stays under the threshold.
//   - Pure hex strings (git SHAs, sha256 digests) are allowed: hex tops out at
//     4 bits/char and such values are mostly identifiers. Hex API keys without
//     a known prefix therefore pass — the documented blind spot.
//   - URLs are allowed unless they carry a password (user:pass@host).

// ErrSecretValue marks an env value that looks like raw secret material.
var ErrSecretValue = errors.New("looks like raw secret material")

// ErrEnvKey marks an invalid env variable name.
var ErrEnvKey = errors.New("invalid env variable name")

// secretPatterns are well-known credential shapes, matched anywhere in the
// value (a key is often embedded, e.g. "Bearer sk-…"). Each needs a
// token-like tail so ordinary words such as "sk-learn" pass.
var secretPatterns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"an API key (sk-)", regexp.MustCompile(`(^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]{16,}`)},
	{"a Stripe key", regexp.MustCompile(`(^|[^A-Za-z0-9])[sr]k_(live|test)_[A-Za-z0-9]{8,}`)},
	{"a GitHub token", regexp.MustCompile(`(^|[^A-Za-z0-9])(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
	{"a GitLab token", regexp.MustCompile(`(^|[^A-Za-z0-9])glpat-[A-Za-z0-9_-]{16,}`)},
	{"a Slack token", regexp.MustCompile(`(^|[^A-Za-z0-9])(xox[abposr]|xapp)-[A-Za-z0-9-]{10,}`)},
	{"an AWS access key id", regexp.MustCompile(`(^|[^A-Za-z0-9])(AKIA|ASIA)[0-9A-Z]{16}([^A-Za-z0-9]|$)`)},
	{"a Google API key", regexp.MustCompile(`(^|[^A-Za-z0-9])AIza[0-9A-Za-z_-]{35}`)},
	{"a PEM block", regexp.MustCompile(`-----BEGIN[ A-Z0-9]*-----`)},
	{"a JWT", regexp.MustCompile(`(^|[^A-Za-z0-9])eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`)},
	{"a URL with a password", regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@`)},
}

// SecretPlaceholder is the one pattern of a getSecret placeholder in an
// env value or a request header: getSecret("NAME"), getSecret('NAME') or
// getSecret(NAME), with optional spaces inside the parentheses. The
// gateway checks env values with it, the worker finds the secrets a boot
// references with it and the egress proxy substitutes what it matches;
// the name is whichever of the three groups matched (PlaceholderName).
var SecretPlaceholder = regexp.MustCompile(`getSecret\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)`)

// PlaceholderName is the secret's name in a match of SecretPlaceholder
// (FindStringSubmatch and friends).
func PlaceholderName(m []string) string { return m[1] + m[2] + m[3] }

// PlaceholderNames lists the distinct secret names value references, in
// order of first appearance.
func PlaceholderNames(value string) []string {
	var out []string
	for _, m := range SecretPlaceholder.FindAllStringSubmatch(value, -1) {
		if n := PlaceholderName(m); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// tokenRun is a run of base64/base64url/hex characters: the alphabet raw keys
// are written in. Dots and other separators split ordinary text into words.
var tokenRun = regexp.MustCompile(`[A-Za-z0-9+/=_-]+`)

const (
	minSecretLen = 32  // shorter random strings are rarely credentials
	minEntropy   = 4.0 // bits/char; hex, UUIDs and words stay below
	maxEnvKeyLen = 256
	maxEnvValLen = 32 << 10
)

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckEnvKey accepts POSIX-style names: letters, digits and underscore, not
// starting with a digit, at most 256 chars (so no '=', NUL or spaces).
func CheckEnvKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrEnvKey)
	case len(key) > maxEnvKeyLen:
		return fmt.Errorf("%w: longer than %d characters", ErrEnvKey, maxEnvKeyLen)
	case !envKey.MatchString(key):
		return fmt.Errorf("%w %q: use letters, digits and _, not starting with a digit", ErrEnvKey, key)
	}
	return nil
}

// CheckEnvValue rejects a value that looks like raw secret material. The error
// names the key and the kind of secret, never the value.
func CheckEnvValue(key, value string) error {
	if strings.ContainsRune(value, 0) {
		return fmt.Errorf("env %s: value contains a NUL byte", key)
	}
	if len(value) > maxEnvValLen {
		return fmt.Errorf("env %s: value longer than %d bytes", key, maxEnvValLen)
	}
	// A placeholder's argument is a secret's name; check it as a literal too.
	rest := value
	for _, m := range SecretPlaceholder.FindAllStringSubmatch(value, -1) {
		if what := secretKind(PlaceholderName(m)); what != "" {
			return secretErr(key, what)
		}
	}
	rest = SecretPlaceholder.ReplaceAllString(rest, " ")
	if what := secretKind(rest); what != "" {
		return secretErr(key, what)
	}
	return nil
}

// CheckEnv checks every key and non-nil value of an env change.
func CheckEnv(env map[string]*string) error {
	for k, v := range env {
		if err := CheckEnvKey(k); err != nil {
			return err
		}
		if v != nil {
			if err := CheckEnvValue(k, *v); err != nil {
				return err
			}
		}
	}
	return nil
}

func secretErr(key, what string) error {
	return fmt.Errorf("env %s: value %w (%s); store it as a secret and use a getSecret(...) placeholder", key, ErrSecretValue, what)
}

// secretKind names the kind of secret s looks like, or "" if none.
func secretKind(s string) string {
	for _, p := range secretPatterns {
		if p.re.MatchString(s) {
			return p.what
		}
	}
	for _, tok := range tokenRun.FindAllString(s, -1) {
		if looksRandom(tok) {
			return "a long high-entropy string"
		}
	}
	return ""
}

// looksRandom flags long tokens with mixed letters and digits, not made of
// words, and with high per-character entropy. Paths ("/usr/lib/x86_64") are spared: random base64
// has about one '/' per 64 chars, a path one per few words.
func looksRandom(tok string) bool {
	tok = strings.TrimRight(tok, "=")
	if len(tok) < minSecretLen || strings.HasPrefix(tok, "/") {
		return false
	}
	if slashes := strings.Count(tok, "/"); slashes*16 > len(tok) {
		return false
	}
	var upper, lower, digit bool
	for _, r := range tok {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	if !digit || !(upper || lower) || wordy(tok) {
		return false
	}
	return shannonEntropy(tok) >= minEntropy
}

// wordy reports whether most of tok is made of word-like segments (all lower,
// all upper, Capitalized, or all digits) between separators, as in
// "db-primary-01-us-east-1". Random keys mix classes inside every segment.
func wordy(tok string) bool {
	plain := 0
	for _, seg := range strings.FieldsFunc(tok, func(r rune) bool { return strings.ContainsRune("-_/+=", r) }) {
		if wordLike(seg) {
			plain += len(seg)
		}
	}
	return plain*4 >= len(tok)*3
}

func wordLike(seg string) bool {
	lowerRest := strings.ToLower(seg[1:]) == seg[1:]
	switch {
	case strings.ToLower(seg) == seg && !strings.ContainsAny(seg, "0123456789"):
		return true
	case strings.ToUpper(seg) == seg && !strings.ContainsAny(seg, "0123456789"):
		return true
	case lowerRest && !strings.ContainsAny(seg, "0123456789"):
		return true
	}
	return strings.Trim(seg, "0123456789") == ""
}

// shannonEntropy is the empirical entropy of s in bits per character.
func shannonEntropy(s string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range s {
		counts[r]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}
