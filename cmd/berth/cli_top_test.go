package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

func topRows() []topRow {
	st := func(cpu float64, mem, disk int64) *client.Stats {
		return &client.Stats{Status: "running", Live: true, CPU: &api.CPUStats{Percent: cpu}, Memory: &api.MemoryStats{UsedBytes: mem},
			Pids: &api.PidsStats{Current: 3, Limit: 512}, Disk: &api.DiskStats{UsedBytes: disk, LimitBytes: 1 << 30}}
	}
	return []topRow{
		{name: "a", status: "running", stats: st(5, 300<<20, 10<<20)},
		{name: "b", status: "running", stats: st(90, 100<<20, 20<<20)},
		{name: "c", status: "starting"},
		{name: "d", status: "running", stats: st(40, 200<<20, 900<<20)},
	}
}

func names(rows []topRow) string {
	var out []string
	for _, r := range rows {
		out = append(out, r.name)
	}
	return strings.Join(out, "")
}

// TestTopSortsBiggestFirst: each key orders by its figure, biggest first,
// with rows lacking figures last.
func TestTopSortsBiggestFirst(t *testing.T) {
	for key, want := range map[byte]string{'c': "bdac", 'm': "adbc", 'd': "dbac"} {
		rows := topRows()
		sortRows(rows, key)
		if got := names(rows); got != want {
			t.Errorf("sort %c: %s, want %s", key, got, want)
		}
	}
}

// TestTopKeepsTheTableWhenTheGatewayFails: a failed refresh keeps the
// last table on screen, saying how old it is; with none yet, it says the
// gateway is unreachable and nothing else. Lines fit the screen.
func TestTopKeepsTheTableWhenTheGatewayFails(t *testing.T) {
	v := topView{rows: topRows(), total: 6, updated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local), sortBy: 'm', every: 2 * time.Second,
		err: errors.New("dial tcp: connection refused")}
	lines := v.render(200, 50)
	all := strings.Join(lines, "\n")
	for _, want := range []string{"3 running of 6 sandboxes", "sorted by memory", "gateway unreachable: dial tcp: connection refused; showing the table of 03:04:05",
		"MEMORY*", "300.0 MiB"} {
		if !strings.Contains(all, want) {
			t.Errorf("screen lacks %q:\n%s", want, all)
		}
	}
	for _, l := range v.render(40, 4) {
		if len(l) > 40 {
			t.Errorf("line wider than the screen: %q", l)
		}
	}
	if n := len(v.render(40, 4)); n != 4 {
		t.Errorf("%d lines on a 4-line screen", n)
	}
	v = topView{err: errors.New("refused"), every: time.Second, sortBy: 'c'}
	if got := strings.Join(v.render(80, 24), "\n"); !strings.Contains(got, "gateway unreachable: refused") || strings.Contains(got, "NAME") {
		t.Errorf("with no table yet:\n%s", got)
	}
}
