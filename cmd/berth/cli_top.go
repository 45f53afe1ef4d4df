package main

// berth top: a live table of the running sandboxes, redrawn in place.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func topCmd(g *globals) *cobra.Command {
	var every time.Duration
	var parallel int
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Live table of running sandboxes: CPU, memory, tasks, disk (c/m/d sort, q quits)",
		Long: `Show the running sandboxes with what each uses, refreshed in place.
Keys: c sorts by CPU, m by memory, d by disk; q (or Ctrl-C) quits.

Each refresh is one list of the sandboxes plus one stats request per
running sandbox, at most --parallel at a time; none of them wakes a
sandbox or holds off its idle sleep. When the gateway does not answer,
the last table stays on screen, marked with how old it is.`,
		GroupID: "sandbox",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if every < 500*time.Millisecond {
				return usageError{fmt.Errorf("--interval %s: at least 500ms", every)}
			}
			if parallel < 1 || parallel > 64 {
				return usageError{fmt.Errorf("--parallel %d: between 1 and 64", parallel)}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			return runTop(cmd.Context(), c, cmd.OutOrStdout(), topOptions{every: every, parallel: parallel})
		},
	}
	cmd.Flags().DurationVar(&every, "interval", 2*time.Second, "time between refreshes")
	cmd.Flags().IntVar(&parallel, "parallel", 4, "stats requests in flight at once")
	return cmd
}

type topOptions struct {
	every    time.Duration
	parallel int
}

// topRow is one sandbox on the screen.
type topRow struct {
	name, status, typ, host string
	stats                   *client.Stats // nil: none read (not running, or its read failed)
	problem                 string        // why stats is nil when it should not be
}

// topView is what the screen shows.
type topView struct {
	rows    []topRow
	total   int       // sandboxes listed, running or not
	updated time.Time // when rows were read
	err     error     // the last refresh's failure, if it failed
	sortBy  byte      // 'c', 'm' or 'd'
	every   time.Duration
}

// topRefresh reads one frame: the list, then the stats of each running
// sandbox, parallel at a time.
func topRefresh(ctx context.Context, c *client.Client, parallel int, timeout time.Duration) ([]topRow, int, error) {
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	list, err := c.List(lctx, "")
	if err != nil {
		return nil, 0, err
	}
	var rows []topRow
	for _, s := range list {
		switch s.Status {
		case "running", "starting", "stopping":
			rows = append(rows, topRow{name: s.Name, status: s.Status, typ: s.InstanceType, host: s.Host})
		}
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range rows {
		if rows[i].status != "running" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(r *topRow) {
			defer func() { <-sem; wg.Done() }()
			st, err := c.Stats(lctx, r.name)
			if err != nil {
				r.problem = "no answer"
				var e *client.Error
				if errors.As(err, &e) {
					r.problem = e.Code
				}
				return
			}
			r.stats, r.status = st, st.Status
		}(&rows[i])
	}
	wg.Wait()
	return rows, len(list), nil
}

// sortRows orders rows by the key, biggest first; rows without the
// figure go last, then by name.
func sortRows(rows []topRow, key byte) {
	fig := func(r topRow) float64 {
		s := r.stats
		switch {
		case s == nil:
			return -1
		case key == 'm' && s.Memory != nil:
			return float64(s.Memory.UsedBytes)
		case key == 'd' && s.Disk != nil:
			return float64(s.Disk.UsedBytes)
		case key == 'c' && s.CPU != nil:
			return s.CPU.Percent
		}
		return -1
	}
	slices.SortStableFunc(rows, func(a, b topRow) int {
		fa, fb := fig(a), fig(b)
		switch {
		case fa > fb:
			return -1
		case fa < fb:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
}

var sortNames = map[byte]string{'c': "CPU", 'm': "memory", 'd': "disk"}

// render draws v as lines at most width wide, at most height of them.
func (v topView) render(width, height int) []string {
	running := 0
	for _, r := range v.rows {
		if r.status == "running" {
			running++
		}
	}
	lines := []string{fmt.Sprintf("berth top  %s  %d running of %d sandboxes  sorted by %s  (c cpu, m memory, d disk, q quit)",
		v.updated.Local().Format("15:04:05"), running, v.total, sortNames[v.sortBy])}
	switch {
	case v.err != nil && v.updated.IsZero():
		lines[0] = "berth top  (c cpu, m memory, d disk, q quit)"
		lines = append(lines, "gateway unreachable: "+termsafe.String(v.err.Error()), fmt.Sprintf("retrying every %s", v.every))
		return clip(lines, width, height)
	case v.err != nil:
		lines = append(lines, fmt.Sprintf("gateway unreachable: %s; showing the table of %s, retrying every %s",
			termsafe.String(v.err.Error()), v.updated.Local().Format("15:04:05"), v.every))
	default:
		lines = append(lines, "")
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	mark := func(key byte, title string) string {
		if key == v.sortBy {
			return title + "*"
		}
		return title
	}
	fmt.Fprintf(tw, "NAME\tSTATUS\tTYPE\tHOST\t%s\t%s\tPIDS\t%s\n", mark('c', "CPU%"), mark('m', "MEMORY"), mark('d', "DISK"))
	for _, r := range v.rows {
		cpu, mem, pids, disk := "-", "-", "-", "-"
		if s := r.stats; s != nil {
			if s.CPU != nil {
				cpu = fmt.Sprintf("%.1f", s.CPU.Percent)
			}
			mem, pids, disk = memCell(s), pidsCell(s), diskCell(s)
		} else if r.problem != "" {
			cpu = "(" + r.problem + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.String(r.name), termsafe.String(r.status),
			termsafe.String(r.typ), termsafe.String(r.host), cpu, mem, pids, disk)
	}
	tw.Flush()
	lines = append(lines, strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")...)
	if len(v.rows) == 0 {
		lines = append(lines, "(no sandbox is running)")
	}
	return clip(lines, width, height)
}

// clip cuts lines to the screen (the text is ASCII after termsafe).
func clip(lines []string, width, height int) []string {
	if height > 0 && len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		if width > 0 && len(l) > width {
			lines[i] = l[:width]
		}
	}
	return lines
}

// runTop refreshes until q, Ctrl-C or ctx. On a terminal it takes keys in
// raw mode and redraws on the alternate screen; otherwise it prints each
// frame after the last.
func runTop(ctx context.Context, c *client.Client, out io.Writer, o topOptions) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	outFd, inFd := int(os.Stdout.Fd()), int(os.Stdin.Fd())
	tty := out == io.Writer(os.Stdout) && term.IsTerminal(outFd)
	keys := make(chan byte, 8)
	if tty && term.IsTerminal(inFd) {
		old, err := term.MakeRaw(inFd)
		if err != nil {
			return fmt.Errorf("raw mode: %w", err)
		}
		defer term.Restore(inFd, old)
		go readKeys(keys)
	}
	if tty {
		fmt.Fprint(out, "\x1b[?1049h\x1b[?25l") // alternate screen, no cursor
		defer fmt.Fprint(out, "\x1b[?25h\x1b[?1049l")
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)

	v := topView{sortBy: 'c', every: o.every}
	draw := func() {
		w, h := 0, 0
		if tty {
			if w, h, _ = term.GetSize(outFd); w <= 0 {
				w, h = 80, 24
			}
		}
		lines := v.render(w, h)
		var b strings.Builder
		if tty {
			b.WriteString("\x1b[H")
			for _, l := range lines {
				b.WriteString(l + "\x1b[K\r\n")
			}
			b.WriteString("\x1b[J")
		} else {
			b.WriteString(strings.Join(lines, "\n") + "\n\n")
		}
		io.WriteString(out, b.String())
	}
	frames := make(chan topFrame, 1)
	refresh := func() {
		rows, total, err := topRefresh(ctx, c, o.parallel, max(o.every*2, 5*time.Second))
		frames <- topFrame{rows, total, err, time.Now()}
	}
	go refresh()
	tick := time.NewTimer(o.every)
	defer tick.Stop()
	pending := true
	for {
		select {
		case <-ctx.Done():
			return nil
		case k := <-keys:
			switch k {
			case 'q', 'Q', 3, 4: // q, Ctrl-C, Ctrl-D (raw mode delivers them as bytes)
				return nil
			case 'c', 'm', 'd':
				v.sortBy = k
				sortRows(v.rows, k)
				draw()
			}
		case <-winch:
			draw()
		case f := <-frames:
			pending = false
			if f.err != nil {
				if ctx.Err() != nil {
					return nil
				}
				v.err = f.err
			} else {
				v.rows, v.total, v.updated, v.err = f.rows, f.total, f.at, nil
				sortRows(v.rows, v.sortBy)
			}
			draw()
		case <-tick.C:
			tick.Reset(o.every)
			if !pending { // a slow gateway: never more than one refresh at a time
				pending = true
				go refresh()
			}
		}
	}
}

type topFrame struct {
	rows  []topRow
	total int
	err   error
	at    time.Time
}

func readKeys(keys chan<- byte) {
	buf := make([]byte, 16)
	for {
		n, err := os.Stdin.Read(buf)
		for _, b := range buf[:n] {
			keys <- b
		}
		if err != nil {
			keys <- 4 // stdin closed: quit as on Ctrl-D
			return
		}
	}
}
