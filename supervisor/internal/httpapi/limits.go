package httpapi

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/berthdev/berth/api"
)

// LimitRetryAfterMs: a slot frees when a process or terminal exits or a
// follower disconnects; a second is a fair first wait.
const LimitRetryAfterMs = 1000

// TooMany is the 429 of a per-sandbox limit: what is at its limit, how
// many, and what frees a slot.
func TooMany(code api.Code, what string, limit int, frees string) *Error {
	e := NewError(http.StatusTooManyRequests, code,
		fmt.Sprintf("this sandbox already has %d %s, its limit; %s, then retry", limit, what, frees))
	e.Retryable, e.RetryAfterMs = true, LimitRetryAfterMs
	return e.With("limit", limit)
}

// Slots counts holders of a limited resource.
type Slots struct {
	mu    sync.Mutex
	n     int
	Limit int
}

// Acquire takes a slot if one is free; the caller must Release it.
func (s *Slots) Acquire() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n >= s.Limit {
		return false
	}
	s.n++
	return true
}

// Release frees a slot taken by Acquire.
func (s *Slots) Release() {
	s.mu.Lock()
	s.n--
	s.mu.Unlock()
}
