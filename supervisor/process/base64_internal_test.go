package process

import (
	"crypto/rand"
	"encoding/base64"
	"testing"
)

func TestAppendBase64MatchesStdlib(t *testing.T) {
	buf := make([]byte, 300)
	rand.Read(buf)
	for n := 0; n <= len(buf); n++ {
		got := string(appendBase64([]byte("prefix"), buf[:n]))
		if want := "prefix" + base64.StdEncoding.EncodeToString(buf[:n]); got != want {
			t.Fatalf("n=%d: %q != %q", n, got, want)
		}
	}
}

func BenchmarkBase64(b *testing.B) {
	src := make([]byte, 64<<10)
	dst := make([]byte, 0, 128<<10)
	b.SetBytes(int64(len(src)))
	b.Run("pairs", func(b *testing.B) {
		for b.Loop() {
			dst = appendBase64(dst[:0], src)
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		for b.Loop() {
			dst = base64.StdEncoding.AppendEncode(dst[:0], src)
		}
	})
}
