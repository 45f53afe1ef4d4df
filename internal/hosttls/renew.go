package hosttls

import (
	"crypto/tls"
	"sync"
	"time"
)

// renewer holds a host's current certificate and issues the next one a day
// before it expires, so a worker that runs for months keeps serving.
type renewer struct {
	ca   *CA
	addr string

	mu   sync.Mutex
	cert *tls.Certificate
}

func (r *renewer) get(now time.Time) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert != nil && now.Before(r.cert.Leaf.NotAfter.Add(-24*time.Hour)) {
		return r.cert, nil
	}
	c, err := r.ca.Issue(r.addr, now)
	if err != nil {
		return nil, err
	}
	r.cert = c
	return c, nil
}
