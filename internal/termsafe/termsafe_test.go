package termsafe_test

import (
	"strings"
	"testing"

	"github.com/berthdev/berth/internal/termsafe"
)

func TestString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"main.go", "main.go"},
		{"naïve café 日本 ✓", "naïve café 日本 ✓"},
		{`C:\dir\x1b`, `C:\dir\x1b`}, // backslashes are left alone
		{"a\x1b]0;pwned\x07b", `a\x1b]0;pwned\ab`},
		{"\x1b[2J", `\x1b[2J`},
		{"tab\there", `tab\there`},
		{"two\nlines\r", `two\nlines\r`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},           // C1 CSI, as UTF-8
		{"bad\xff\xc3utf8", `bad\xff\xc3utf8`},     // invalid UTF-8 bytes
		{"evil\u202egnp.exe", `evil\u202egnp.exe`}, // right-to-left override
		{"iso\u2066x\u2069 sep\u2028", `iso\u2066x\u2069 sep\u2028`},
		{"\a\b\f\v", `\a\b\f\v`},
	} {
		got := termsafe.String(c.in)
		if got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := termsafe.String(got); again != got {
			t.Errorf("String is not idempotent on %q: %q", got, again)
		}
		if termsafe.Safe(c.in) != (c.in == c.want) {
			t.Errorf("Safe(%q) = %v", c.in, termsafe.Safe(c.in))
		}
	}
}

// TestNoControlByteSurvives: whatever the input, the output holds no byte
// a terminal acts on, and is valid UTF-8.
func TestNoControlByteSurvives(t *testing.T) {
	var all strings.Builder
	for b := 0; b < 256; b++ {
		all.WriteByte(byte(b))
	}
	for r := rune(0x80); r <= 0x9f; r++ {
		all.WriteRune(r)
	}
	for _, out := range []string{termsafe.String(all.String()), termsafe.Lines(all.String())} {
		for i := 0; i < len(out); i++ {
			if c := out[i]; c < 0x20 && c != '\n' || c == 0x7f {
				t.Fatalf("byte %#x survived at %d in %q", c, i, out)
			}
		}
		if strings.ContainsRune(out, '\u009b') || strings.ContainsRune(out, '\u009d') {
			t.Fatalf("a C1 control survived in %q", out)
		}
	}
	if strings.Contains(termsafe.String(all.String()), "\n") {
		t.Fatal("String kept a newline")
	}
}

func TestLinesKeepsNewlines(t *testing.T) {
	got := termsafe.Lines("usage: bad flag\nSee 'berth --help'.\x1b[2J")
	if want := "usage: bad flag\nSee 'berth --help'.\\x1b[2J"; got != want {
		t.Fatalf("Lines = %q, want %q", got, want)
	}
}

func TestStrings(t *testing.T) {
	got := termsafe.Strings([]string{"sh", "-c", "printf '\x1b[31m'"})
	if got[2] != `printf '\x1b[31m'` || got[0] != "sh" {
		t.Fatalf("Strings = %q", got)
	}
}
