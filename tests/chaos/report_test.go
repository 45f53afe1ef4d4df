package chaos

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// report prints the run's figures.
func report(t *testing.T, seed uint64, d *driver, r *rig, violations []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "CHAOS FIGURES (seed %d)\n", seed)
	total, acked := 0, 0
	for _, n := range d.ops {
		total += n
	}
	for _, n := range d.acked {
		acked += n
	}
	fmt.Fprintf(&b, "  operations run: %d (%d acknowledged)\n", total, acked)
	for _, op := range sortedKeys(d.ops) {
		fmt.Fprintf(&b, "    %-16s %5d (%d acknowledged)\n", op, d.ops[op], d.acked[op])
	}
	count := r.faults.tally()
	nf := 0
	for _, n := range count {
		nf += n
	}
	fmt.Fprintf(&b, "  faults injected: %d\n", nf)
	for _, k := range r.kinds {
		fmt.Fprintf(&b, "    %-16s %5d\n", k, count[k])
	}
	for _, k := range sortedKeys(count) {
		if n := count[k]; n > 0 && !slices.Contains(r.kinds, k) {
			fmt.Fprintf(&b, "    %-16s %5d\n", k, n)
		}
	}
	if dk := r.disk; dk != nil && dk.fills > 0 {
		fmt.Fprintf(&b, "  disk filled %d times: answered while full %d times, writes refused %d %v, took writes again after the removal %d times\n",
			dk.fills, dk.fullAnswers, dk.writesRefused, dk.codes, dk.recovered)
	}
	fmt.Fprintf(&b, "  errors answered, by code:\n")
	for _, code := range sortedKeys(d.codes) {
		fmt.Fprintf(&b, "    %-26s %5d\n", code, d.codes[code])
	}
	for _, m := range d.noAnswer {
		fmt.Fprintf(&b, "    (no answer) e.g. %s\n", m)
	}
	fmt.Fprintf(&b, "  sandboxes checked: %d; files verified: %d; bytes verified: %d; events checked: %d; workflows queried: %d; services running as declared: %d\n",
		len(d.boxes), verified.files, verified.bytes, verified.events, verified.queries, verified.services)
	fmt.Fprintf(&b, "  invariant violations: %d\n", len(violations))
	t.Log("\n" + b.String())
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
