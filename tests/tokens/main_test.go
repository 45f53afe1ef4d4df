// Package tokens tests scoped tokens against the real stack: every
// sandbox route with tokens in and out of their reach, revocation seen by
// a second gateway within its cache bound, expiry, and what is stored.
package tokens

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/stacktest"
)

// cacheBound is the gateways' BERTH_TOKEN_CACHE here: short, so the
// revocation test waits little, and still long enough to be seen in use.
const cacheBound = 3 * time.Second

var stack *stacktest.Stack

func TestMain(m *testing.M) {
	http.DefaultClient = stacktest.HTTPClient()
	stacktest.Main(m, stacktest.Options{Env: []string{"BERTH_TOKEN_CACHE=" + cacheBound.String()}}, func(s *stacktest.Stack) { stack = s })
}

// base gives each test its own sandbox names.
func base(t *testing.T, tag string) string {
	return fmt.Sprintf("%s-%d", tag, time.Now().UnixNano()%1e7)
}
