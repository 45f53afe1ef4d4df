package connpool

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// droppingServer answers the first request on its first connection, then
// reads the second one there and closes the connection without an answer:
// a server closing an idle connection just as a request arrives. Every
// other request is answered with its method and body. It records each
// request it read, as "METHOD body".
func droppingServer(t *testing.T) (addr string, seen func() []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var got []string
	first := true
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			dropSecond := first
			first = false
			mu.Unlock()
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for n := 1; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					b, _ := io.ReadAll(req.Body)
					mu.Lock()
					got = append(got, req.Method+" "+string(b))
					mu.Unlock()
					if dropSecond && n == 2 {
						return
					}
					answer := req.Method + " " + string(b)
					c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer))
				}
			}()
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

func doOnce(p *Pool, addr, method, body string) (string, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, "http://"+addr+"/x", rd)
	if err != nil {
		return "", err
	}
	resp, err := p.Do(req, addr)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// A GET that a reused connection lost before any answer is sent again over
// a new connection, and the caller sees only its answer.
func TestPoolResendAnIdempotentRequestALostConnectionDropped(t *testing.T) {
	addr, seen := droppingServer(t)
	p := new(Pool)
	t.Cleanup(p.CloseIdleConnections)
	if got, err := doOnce(p, addr, http.MethodGet, ""); err != nil || got != "GET " {
		t.Fatalf("first GET: %q, %v", got, err)
	}
	if got, err := doOnce(p, addr, http.MethodGet, ""); err != nil || got != "GET " {
		t.Fatalf("GET over the connection the server dropped: %q, %v; want it sent again and answered", got, err)
	}
	if s := seen(); len(s) != 3 {
		t.Fatalf("server read %q; want three GETs (one lost, one sent again)", s)
	}
}

// A POST the server read before the connection dropped is not sent twice:
// the server may have acted on it. The caller gets the error.
func TestPoolNeverResendAPostTheServerRead(t *testing.T) {
	addr, seen := droppingServer(t)
	p := new(Pool)
	t.Cleanup(p.CloseIdleConnections)
	if _, err := doOnce(p, addr, http.MethodGet, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := doOnce(p, addr, http.MethodPost, `{"cmd":["true"]}`); err == nil {
		t.Fatalf("POST over the dropped connection answered %q; want an error", got)
	}
	if s := seen(); len(s) != 2 || s[1] != `POST {"cmd":["true"]}` {
		t.Fatalf("server read %q; want the GET then the POST once", s)
	}
}
