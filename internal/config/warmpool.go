package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxWarmPool bounds one instance type's warm pool: each warm container
// holds its type's limits on the host.
const MaxWarmPool = 64

// WarmPool is how many warm containers a worker keeps per instance type
// (BERTH_WARM_POOL): booted with an empty workspace and a supervisor that
// answers, waiting for a sandbox to claim one. Empty: no pools.
type WarmPool map[string]int

// ParseWarmPool reads BERTH_WARM_POOL: "N" keeps N of the default
// instance type, "basic=4,lite=2" names each type; "0" or "" turns pools
// off. Every type must be one of types.
func ParseWarmPool(s string, types InstanceTypes) (WarmPool, error) {
	s = strings.TrimSpace(s)
	pool := WarmPool{}
	if s == "" {
		return pool, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, count, named := strings.Cut(strings.TrimSpace(part), "=")
		if !named {
			name, count = DefaultInstanceType, part
		}
		name = strings.TrimSpace(name)
		n, err := strconv.Atoi(strings.TrimSpace(count))
		if err != nil || n < 0 || n > MaxWarmPool {
			return nil, fmt.Errorf("BERTH_WARM_POOL=%q: want a count 0-%d, or TYPE=COUNT,… such as basic=4,lite=2", s, MaxWarmPool)
		}
		if _, ok := types[name]; !ok {
			return nil, fmt.Errorf("BERTH_WARM_POOL=%q: unknown instance type %q", s, name)
		}
		if _, dup := pool[name]; dup {
			return nil, fmt.Errorf("BERTH_WARM_POOL=%q: instance type %q is named twice", s, name)
		}
		pool[name] = n
	}
	for name, n := range pool {
		if n == 0 {
			delete(pool, name)
		}
	}
	return pool, nil
}

// Types lists the instance types with a pool, in a stable order.
func (p WarmPool) Types() []string {
	var names []string
	for name := range p {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
