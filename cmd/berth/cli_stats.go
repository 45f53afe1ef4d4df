package main

// berth stats NAME…: one reading of what sandboxes use, as a table.

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func statsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stats NAME…",
		Short: "Show what sandboxes use now: CPU, memory, tasks, disk, network (never wakes one)",
		Long: `Show one reading of each sandbox's CPU (percent of one core over the
last interval, and its quota), memory, tasks, disk and network bytes. A
sandbox that is not running shows its status and no live figures; this
never starts it. For a live table of every running sandbox, see 'berth top'.`,
		Example: `  berth stats demo
  berth stats demo web --json`,
		GroupID: "sandbox",
		Args:    cobra.MinimumNArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			out := make([]*client.Stats, 0, len(args))
			for _, name := range args {
				st, err := c.Stats(cmd.Context(), name)
				if err != nil {
					return err
				}
				out = append(out, st)
			}
			var v any = out
			if len(out) == 1 {
				v = out[0]
			}
			return g.out(cmd, v, func(w io.Writer) { printStats(w, out) })
		},
	}
}

func printStats(w io.Writer, list []*client.Stats) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tCPU\tMEMORY\tPIDS\tDISK\tNET RX\tNET TX")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.String(s.Name), termsafe.String(s.Status),
			cpuCell(s), memCell(s), pidsCell(s), diskCell(s), netCell(s, true), netCell(s, false))
	}
	tw.Flush()
}

// The cells are "-" for a figure the sandbox does not have now.

func cpuCell(s *client.Stats) string {
	if s.CPU == nil {
		return "-"
	}
	if s.CPU.LimitCores > 0 {
		return fmt.Sprintf("%.1f%% of %.2g cores", s.CPU.Percent, s.CPU.LimitCores)
	}
	return fmt.Sprintf("%.1f%%", s.CPU.Percent)
}

func memCell(s *client.Stats) string {
	if s.Memory == nil {
		return "-"
	}
	return usedOf(s.Memory.UsedBytes, s.Memory.LimitBytes)
}

func pidsCell(s *client.Stats) string {
	if s.Pids == nil {
		return "-"
	}
	if s.Pids.Limit > 0 {
		return fmt.Sprintf("%d/%d", s.Pids.Current, s.Pids.Limit)
	}
	return fmt.Sprint(s.Pids.Current)
}

func diskCell(s *client.Stats) string {
	if s.Disk == nil {
		return "-"
	}
	cell := usedOf(s.Disk.UsedBytes, s.Disk.LimitBytes)
	if s.Disk.LastKnown {
		cell += " (last " + ago(s.Disk.At) + ")"
	}
	return cell
}

func netCell(s *client.Stats, rx bool) string {
	switch {
	case s.Network == nil:
		return "-"
	case rx:
		return humanBytes(s.Network.RxBytes)
	}
	return humanBytes(s.Network.TxBytes)
}

// usedOf is "used / limit (pct%)", or just used with no limit.
func usedOf(used, limit int64) string {
	if limit <= 0 {
		return humanBytes(used)
	}
	return fmt.Sprintf("%s / %s (%.0f%%)", humanBytes(used), humanBytes(limit), 100*float64(used)/float64(limit))
}
