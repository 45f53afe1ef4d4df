package child

import (
	"sort"
	"strconv"
	"strings"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// EnvLayer is one layer of environment overrides (api.Env): a nil value
// removes the variable from the layers below.
type EnvLayer = api.Env

// ValidateEnv rejects names and values that execve cannot represent, so a
// typo becomes a 400 instead of a silently mangled variable.
func ValidateEnv(l EnvLayer) *httpapi.Error {
	for k, v := range l {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return httpapi.BadRequest("invalid environment variable name "+strconv.Quote(k)+": must be non-empty without '=' or NUL").With("name", k)
		}
		if v != nil && strings.IndexByte(*v, 0) >= 0 {
			return httpapi.BadRequest("environment variable "+k+" contains a NUL byte").With("name", k)
		}
	}
	return nil
}

// BuildEnv merges base ("K=V" list, the image env) with the layers in order
// and returns a sorted "K=V" list for execve.
func BuildEnv(base []string, layers ...EnvLayer) []string {
	m := make(map[string]string, len(base)+8)
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	for _, l := range layers {
		for k, v := range l {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = *v
			}
		}
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// lookupEnv finds k in a "K=V" list.
func lookupEnv(env []string, k string) (string, bool) {
	for _, kv := range env {
		if len(kv) > len(k) && kv[len(k)] == '=' && kv[:len(k)] == k {
			return kv[len(k)+1:], true
		}
	}
	return "", false
}
