package chaos

import (
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// storeProxy stands between Berth and its S3 server (versitygw) so that
// the fault loop can make the backup store fail or slow down: fault
// injection, the only fake of the chaos run. down refuses every new
// connection and cuts the open ones; slow delays every chunk by delay.
type storeProxy struct {
	ln    net.Listener
	down  atomic.Bool
	delay atomic.Int64 // nanoseconds per chunk; 0: full speed
	gen   atomic.Int64 // bumped when down: open connections end
}

func startStoreProxy(t testing.TB, upstream string) *storeProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &storeProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.down.Load() {
				c.Close()
				continue
			}
			go p.serve(c, upstream)
		}
	}()
	return p
}

func (p *storeProxy) Addr() string { return p.ln.Addr().String() }

// setDown cuts the store off (true) or lets it back (false).
func (p *storeProxy) setDown(down bool) {
	p.down.Store(down)
	if down {
		p.gen.Add(1)
	}
}

func (p *storeProxy) serve(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	gen := p.gen.Load()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if d := p.delay.Load(); d > 0 {
					time.Sleep(time.Duration(d))
				}
				if p.gen.Load() != gen {
					break // the store went down meanwhile
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}
	go pipe(u, c)
	go pipe(c, u)
	<-done
}
