package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// results is the conformance table: scenario -> client -> "pass" or the
// failure. TestMain prints it after the run.
var (
	resultsMu sync.Mutex
	results   = map[string]map[string]string{}
	counts    = map[string]int64{}
)

func recordResult(clientName, scenario string, err error) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if results[scenario] == nil {
		results[scenario] = map[string]string{}
	}
	if err != nil {
		results[scenario][clientName] = "FAIL: " + err.Error()
	} else {
		results[scenario][clientName] = "pass"
	}
}

func recordCount(clientName string, n int64) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	counts[clientName] += n
}

// readResults takes the results a child runner wrote: a JSON object of
// scenario -> "pass" or the failure message.
func readResults(clientName, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s runner wrote no results: %v", clientName, err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s results: %v", clientName, err)
	}
	for sc, res := range m {
		var err error
		if res != "pass" {
			err = fmt.Errorf("%s", strings.TrimPrefix(res, "FAIL: "))
		}
		recordResult(clientName, sc, err)
	}
	return nil
}

// printTable writes the conformance table (scenario x client) to stderr.
func printTable() {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	clients := []string{"go", "typescript", "python"}
	var scenarios []string
	for sc := range results {
		scenarios = append(scenarios, sc)
	}
	sort.Strings(scenarios)
	var b strings.Builder
	fmt.Fprintf(&b, "conformance:\n  %-30s", "scenario")
	for _, c := range clients {
		fmt.Fprintf(&b, " %-10s", c)
	}
	b.WriteString("\n")
	for _, sc := range scenarios {
		fmt.Fprintf(&b, "  %-30s", sc)
		for _, c := range clients {
			r := results[sc][c]
			switch {
			case r == "":
				r = "-"
			case r != "pass":
				r = "FAIL"
			}
			fmt.Fprintf(&b, " %-10s", r)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  responses checked against the spec:")
	for _, c := range clients {
		fmt.Fprintf(&b, " %s %d", c, counts[c])
	}
	b.WriteString("\n")
	fmt.Fprint(os.Stderr, b.String())
}
