package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// A Scenario is one file of this directory: steps in order, each an
// operation with its arguments and what must come of it. README.md here
// describes the operations; every client's runner implements them.
type Scenario struct {
	Name  string `json:"name"`
	About string `json:"about"`
	Steps []Step `json:"steps"`
}

// A Step is an operation ("op") with free-form arguments; "expect" is a
// subset of the operation's result, "expectError" the error it must end in.
type Step map[string]any

func (s Step) Op() string { return s.str("op") }

func (s Step) str(k string) string {
	v, _ := s[k].(string)
	return v
}

func (s Step) num(k string) (int, bool) {
	v, ok := s[k].(float64)
	return int(v), ok
}

func (s Step) boolean(k string) (bool, bool) {
	v, ok := s[k].(bool)
	return v, ok
}

func (s Step) strings(k string) []string {
	raw, _ := s[k].([]any)
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

func (s Step) object(k string) map[string]any {
	v, _ := s[k].(map[string]any)
	return v
}

// loadScenarios reads every scenario of this directory, in name order.
func loadScenarios(t testing.TB) []Scenario {
	files, err := filepath.Glob("*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios here: %v", err)
	}
	sort.Strings(files)
	var out []Scenario
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sc Scenario
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if sc.Name+".json" != f {
			t.Fatalf("%s: name %q does not match the file", f, sc.Name)
		}
		out = append(out, sc)
	}
	return out
}

// sandboxName is the name a runner gives a scenario's sandbox label: unique
// per run, so that runs and clients never meet.
func sandboxName(client, scenario, label string) string {
	b := make([]byte, 3)
	rand.Read(b)
	short := strings.ReplaceAll(scenario, "-", "")
	if len(short) > 12 {
		short = short[:12]
	}
	return fmt.Sprintf("%s-%s-%s-%s", client, short, label, hex.EncodeToString(b))
}

// checkExpect compares a step's "expect" with what the operation gave.
// Plain keys must be equal (objects: each listed key; a null value means
// the key is absent); suffixed keys compare the base key's value:
// xEndsWith, xMaxLen (length at most), xTrimmed (equal without surrounding
// white space), xInclude (a list holding every listed item), xAtLeast.
// The TypeScript and Python runners apply the same rules.
func checkExpect(expect, got map[string]any) error {
	keys := make([]string, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := expect[k]
		switch {
		case strings.HasSuffix(k, "EndsWith"):
			base := strings.TrimSuffix(k, "EndsWith")
			if s, _ := got[base].(string); !strings.HasSuffix(s, want.(string)) {
				return fmt.Errorf("%s: %q does not end with %q", base, s, want)
			}
		case strings.HasSuffix(k, "MaxLen"):
			base := strings.TrimSuffix(k, "MaxLen")
			if s, _ := got[base].(string); len(s) > int(want.(float64)) {
				return fmt.Errorf("%s: %d bytes, more than %v", base, len(s), want)
			}
		case strings.HasSuffix(k, "Trimmed"):
			base := strings.TrimSuffix(k, "Trimmed")
			if s, _ := got[base].(string); strings.TrimSpace(s) != want.(string) {
				return fmt.Errorf("%s: %q, want %q", base, s, want)
			}
		case strings.HasSuffix(k, "Include"):
			base := strings.TrimSuffix(k, "Include")
			have := map[string]bool{}
			for _, v := range toList(got[base]) {
				have[fmt.Sprint(v)] = true
			}
			for _, v := range want.([]any) {
				if !have[fmt.Sprint(v)] {
					return fmt.Errorf("%s: %v does not include %v", base, got[base], v)
				}
			}
		case strings.HasSuffix(k, "AtLeast"):
			base := strings.TrimSuffix(k, "AtLeast")
			if n := toFloat(got[base]); n < want.(float64) {
				return fmt.Errorf("%s: %v, want at least %v", base, got[base], want)
			}
		default:
			if err := same(k, want, got[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

func same(k string, want, got any) error {
	if wm, ok := want.(map[string]any); ok {
		gm, _ := got.(map[string]any)
		for kk, wv := range wm {
			gv, present := gm[kk]
			if wv == nil {
				if present {
					return fmt.Errorf("%s.%s: %v, want absent", k, kk, gv)
				}
				continue
			}
			if err := same(k+"."+kk, wv, gv); err != nil {
				return err
			}
		}
		return nil
	}
	if wf, ok := want.(float64); ok {
		if gf := toFloat(got); gf != wf || math.IsNaN(gf) {
			return fmt.Errorf("%s: %v, want %v", k, got, want)
		}
		return nil
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%s: %#v, want %#v", k, got, want)
	}
	return nil
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	case int64:
		return float64(n)
	}
	return math.NaN()
}

func toList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}
