package terminal

import (
	"bytes"
	"testing"
)

func TestRingWrapAndEviction(t *testing.T) {
	b := newRing(10)
	var all []byte
	for i := 0; i < 7; i++ {
		chunk := bytes.Repeat([]byte{byte('a' + i)}, 3+i)
		b.write(chunk)
		all = append(all, chunk...)
	}
	b.write(bytes.Repeat([]byte("Z"), 25)) // larger than the ring
	all = append(all, bytes.Repeat([]byte("Z"), 25)...)
	start, end := b.bounds()
	if end != int64(len(all)) || start != end-10 {
		t.Fatalf("bounds %d %d (len %d)", start, end, len(all))
	}
	b.write([]byte("0123"))
	all = append(all, "0123"...)
	at, data, eof, _ := b.read(0, 100, nil)
	if at != int64(len(all))-10 || !bytes.Equal(data, all[len(all)-10:]) || eof {
		t.Fatalf("read from 0: at %d %q eof %v", at, data, eof)
	}
	at, data, _, _ = b.read(int64(len(all))-3, 2, nil)
	if at != int64(len(all))-3 || string(data) != "12" {
		t.Fatalf("partial read %d %q", at, data)
	}
	b.close()
	_, data, eof, _ = b.read(int64(len(all)), 5, nil)
	if len(data) != 0 || !eof {
		t.Fatal("want eof at the end once closed")
	}
}
