package connpool

import (
	"context"
	"errors"
	"io"
)

// body is an answer's body; its connection goes back to the pool only
// once the body was read to its end and the request's context did not end
// meanwhile.
type body struct {
	io.ReadCloser
	ctx    context.Context
	pool   *Pool
	addr   string
	conn   *conn
	stop   func() bool
	reuse  bool
	ended  bool
	closed bool
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		b.ended = true
	} else if err != nil {
		err = ctxErr(b.ctx, err)
	}
	return n, err
}

func (b *body) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if !b.ended {
		// Dropped, not drained: an event stream or a log follow has no end.
		b.stop()
		return b.conn.Close()
	}
	canceled := !b.stop()
	if err := b.ReadCloser.Close(); err != nil || canceled || !b.reuse {
		b.conn.Close()
		return err
	}
	b.pool.put(b.addr, b.conn)
	return nil
}
