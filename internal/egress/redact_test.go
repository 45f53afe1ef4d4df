package egress

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// A value is masked wherever the stream splits it, byte by byte included,
// and the length of the stream does not change.
func TestRedactReaderAcrossReads(t *testing.T) {
	var r redactor
	r.add([]string{"s3cret-VALUE", `a"b\c-quoted`})
	body := "head s3cret-VALUE mid s3cret-VALU s3cret-VALUE" + strings.Repeat("x", 70<<10) + `s3cret-VALUE {"k":"a\"b\\c-quoted"} tail s3cret-`
	for name, src := range map[string]io.Reader{
		"whole":       strings.NewReader(body),
		"byte-a-time": iotest.OneByteReader(strings.NewReader(body)),
		"halves":      iotest.HalfReader(strings.NewReader(body)),
	} {
		rr := &redactReader{r: io.NopCloser(src), pats: r.patterns()}
		got, err := io.ReadAll(rr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(body) {
			t.Errorf("%s: %d bytes, want %d", name, len(got), len(body))
		}
		if bytes.Contains(got, []byte("s3cret-VALUE")) || bytes.Contains(got, []byte(`a\"b\\c-quoted`)) {
			t.Errorf("%s: a value came through", name)
		}
		if !bytes.Contains(got, []byte("s3cret-VALU ")) || !bytes.HasSuffix(got, []byte("tail s3cret-")) {
			t.Errorf("%s: text that is not the value was changed", name)
		}
	}
}

// An interactive stream (a WebSocket) is not held up: bytes that cannot be
// the start of a value are handed on as they arrive.
func TestRedactReaderDoesNotHoldBackInnocentBytes(t *testing.T) {
	var r redactor
	r.add([]string{"s3cret-VALUE"})
	pr, pw := io.Pipe()
	rr := &redactReader{r: pr, pats: r.patterns()}
	go pw.Write([]byte("ping"))
	done := make(chan string)
	go func() {
		b := make([]byte, 16)
		n, _ := rr.Read(b)
		done <- string(b[:n])
	}()
	select {
	case got := <-done:
		if got != "ping" {
			t.Fatalf("read %q", got)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a message that cannot begin a value was held back")
	}
	pw.Close()
}

// Headers are masked, and an answer in a content coding is refused once a
// value went out on the connection; before that, answers pass untouched.
func TestRedactorResponse(t *testing.T) {
	var r redactor
	resp := &http.Response{Header: http.Header{"Content-Encoding": {"gzip"}}, Body: io.NopCloser(strings.NewReader(""))}
	if err := r.response(resp); err != nil {
		t.Fatalf("nothing substituted yet: %v", err)
	}
	r.add([]string{"s3cret-VALUE"})
	if err := r.response(resp); err != errCompressed {
		t.Fatalf("compressed answer: %v", err)
	}
	resp = &http.Response{Header: http.Header{"X-Echo": {"Bearer s3cret-VALUE"}}, Body: io.NopCloser(strings.NewReader("s3cret-VALUE"))}
	if err := r.response(resp); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("X-Echo") != "Bearer ************" || string(b) != "************" {
		t.Fatalf("%q %q", resp.Header.Get("X-Echo"), b)
	}
}
