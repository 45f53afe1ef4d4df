// Package termsafe makes strings that come from a sandbox (file names,
// argv, error messages quoting paths) safe to print on a terminal: a file
// name must not be able to send escape sequences, retitle the window,
// clear the screen or forge lines of output.
//
// C0 controls, DEL and C1 controls are written as Go escapes (\x1b, \n,
// \u009b), bytes that are not UTF-8 as \xNN, and the Unicode characters that
// reorder or break text (bidi controls, line and paragraph separators) as
// \uNNNN. Everything else, backslashes included, is left as it is, so clean
// text prints unchanged and escaping twice changes nothing.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String escapes every control character of s, newlines and tabs included:
// for one table cell or one line.
func String(s string) string { return escape(s, false) }

// Lines is String that keeps newlines: for a message of several lines.
func Lines(s string) string { return escape(s, true) }

// Strings escapes each element of ss.
func Strings(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = String(s)
	}
	return out
}

// Safe reports whether s prints as it is (String(s) == s).
func Safe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, keepNewlines bool) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case !unsafeRune(r):
			b.WriteString(s[i : i+n])
		case r == '\a':
			b.WriteString(`\a`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\v':
			b.WriteString(`\v`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// unsafeRune: C0, DEL, C1, and the characters that reorder or split lines
// (a name could otherwise show as something it is not).
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, // Arabic letter mark, LRM, RLM
		r >= 0x2028 && r <= 0x202e, // line/paragraph separators, embeddings, overrides
		r >= 0x2066 && r <= 0x2069: // isolates
		return true
	}
	return false
}
