package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzParseDuration: any string parses or is refused without a panic; an
// accepted duration is never negative and its Go spelling parses back to
// itself (what the gateway echoes is what a client may send again).
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30s", "1m30s", "250ms", "0", "1.5", "-1", "1e300", "NaN", "Inf", "9223372036s", "3153600000", "0x10", "1_000", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if d != 0 {
				t.Fatalf("%q: refused (%v) but returned %v", s, err, d)
			}
			return
		}
		if d < 0 {
			t.Fatalf("%q: accepted as negative %v", s, d)
		}
		back, err := ParseDuration(d.String())
		if err != nil || back != d {
			t.Fatalf("%q -> %v, whose spelling %q parses to %v, %v", s, d, d.String(), back, err)
		}
	})
}

// FuzzDurationJSON: a JSON duration field decodes without a panic; what it
// decodes to marshals to a value that decodes to the same.
func FuzzDurationJSON(f *testing.F) {
	for _, s := range []string{`"30s"`, `30`, `1.5`, `null`, `"x"`, `-3`, `"\u0031s"`, `[]`, `{}`, `"`, `1e400`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var d Duration
		if err := json.Unmarshal(b, &d); err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("%q: negative %v", b, time.Duration(d))
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Duration
		if err := json.Unmarshal(out, &back); err != nil || back != d {
			t.Fatalf("%q -> %v -> %s -> %v, %v", b, time.Duration(d), out, time.Duration(back), err)
		}
	})
}

// FuzzSplitTagged: handles parse without a panic; a parsed handle has one
// spelling (formatting it gives back the input), so two spellings never
// name the same process or cursor.
func FuzzSplitTagged(f *testing.F) {
	tag := BootTag("boot")
	for _, s := range []string{"p-" + tag + "-17", "c-" + tag + "-17-42", "tc-" + tag + "-3-4096", "p-" + tag + "-017", "p--1", "p-" + tag + "-18446744073709551616", "c-" + strings.ToUpper(tag) + "-1-1"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, want uint8) {
		for _, prefix := range []string{PrefixProcess, PrefixLogCursor, PrefixTerminal, PrefixTerminalCursor} {
			tag, nums, ok := SplitTagged(s, prefix, int(want%4))
			if !ok {
				continue
			}
			if !isTag(tag) || len(nums) != int(want%4) {
				t.Fatalf("%q: tag %q, nums %v", s, tag, nums)
			}
			if back := FormatTagged(prefix, tag, nums...); back != s {
				t.Fatalf("%q parses as %s %s %v, which formats as %q", s, prefix, tag, nums, back)
			}
		}
	})
}

// FuzzNames: an accepted sandbox name is one safe path segment, an
// accepted backup id sorts as its time.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"a", "my-box-1", "-a", "A", "a/b", "..", strings.Repeat("a", 64), "a\n", "20260102T150405Z-0123abcd", "20260102T150405Z-0123abcd\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidSandboxName(s) {
			if len(s) == 0 || len(s) > 63 || strings.ContainsAny(s, "/.\\\x00\n %?#") || s[0] == '-' || strings.ToLower(s) != s {
				t.Fatalf("sandbox name %q accepted", s)
			}
		}
		if ValidBackupID(s) {
			if _, err := time.Parse("20060102T150405Z", s[:16]); err != nil && len(s) != 25 {
				t.Fatalf("backup id %q accepted", s)
			}
			if len(s) != 25 || strings.ContainsAny(s, "/\n") {
				t.Fatalf("backup id %q accepted", s)
			}
		}
	})
}
