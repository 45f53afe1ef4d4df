package main

// The host verbs: hosts (the list with load), host drain and host undrain.

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// hostCmds are `berth hosts` and `berth host drain|undrain`.
func hostCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{hostsCmd(g), hostCmd(g)}
}

func hostsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "hosts", Short: "List the Docker hosts with their capacity and load", GroupID: "server",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.Hosts(cmd.Context())
			if err != nil {
				return err
			}
			if list == nil {
				list = []client.Host{}
			}
			return g.out(cmd, list, func(w io.Writer) {
				if len(list) == 0 {
					fmt.Fprintln(w, "no host has announced itself yet (every `berth worker` does within 5 s of starting)")
					return
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "HOST\tSTATE\tSANDBOXES\tWARM\tCPU\tMEMORY\tLAST SEEN\tVERSION")
				for _, h := range list {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", termsafe.String(h.ID), hostState(h), h.Sandboxes, warmCounts(h.Warm),
						load(h.Used.MilliCPU+h.Reserved.MilliCPU, h.Capacity.MilliCPU, func(v int64) string { return fmt.Sprintf("%.2f", float64(v)/1000) }),
						load(h.Used.MemoryMiB+h.Reserved.MemoryMiB, h.Capacity.MemoryMiB, func(v int64) string { return humanBytes(v << 20) }),
						ago(h.LastSeen), termsafe.String(h.Version))
				}
				tw.Flush()
			})
		},
	}
}

func hostState(h client.Host) string {
	switch {
	case !h.Live:
		return "lost"
	case h.Draining:
		return "draining"
	}
	return "live"
}

// load is "used/capacity (pct%)".
func load(used, capacity int64, unit func(int64) string) string {
	pct := 0.0
	if capacity > 0 {
		pct = 100 * float64(used) / float64(capacity)
	}
	return fmt.Sprintf("%s/%s (%.0f%%)", unit(used), unit(capacity), pct)
}

func hostCmd(g *globals) *cobra.Command {
	host := &cobra.Command{Use: "host", Short: "Drain a Docker host for maintenance, undrain it, or forget a lost one", GroupID: "server"}
	var move bool
	drain := &cobra.Command{
		Use:   "drain HOST",
		Short: "Stop placing sandboxes on HOST and put its sandboxes to sleep (--move: start them elsewhere)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			p := startProgress("draining " + args[0])
			res, err := c.DrainHost(cmd.Context(), args[0], move)
			p.end()
			if err != nil {
				return err
			}
			failed := 0
			err = g.out(cmd, res, func(w io.Writer) {
				for _, s := range res.Sandboxes {
					switch s.Action {
					case "moved":
						fmt.Fprintf(w, "%s: moved to %s\n", termsafe.String(s.Name), termsafe.String(s.Host))
					case "failed":
						failed++
						fmt.Fprintf(w, "%s: failed: %s\n", termsafe.String(s.Name), termsafe.String(s.Error.Message))
					default:
						fmt.Fprintf(w, "%s: %s\n", termsafe.String(s.Name), termsafe.String(s.Action))
					}
				}
				fmt.Fprintf(w, "host %s is draining: %d sandboxes handled, %d failed\n", termsafe.String(args[0]), len(res.Sandboxes), failed)
			})
			if err == nil && failed > 0 {
				err = fmt.Errorf("%d sandboxes could not be drained; run the drain again", failed)
			}
			return err
		},
	}
	drain.Flags().BoolVar(&move, "move", false, "start each sandbox again on another host")
	undrain := &cobra.Command{
		Use: "undrain HOST", Short: "Let sandboxes be placed on HOST again", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			h, err := c.UndrainHost(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return g.out(cmd, h, func(w io.Writer) { fmt.Fprintf(w, "host %s is %s\n", termsafe.String(h.ID), hostState(*h)) })
		},
	}
	forget := &cobra.Command{
		Use: "forget HOST", Short: "Stop listing a lost HOST (a machine gone for good)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			h, err := c.ForgetHost(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return g.out(cmd, h, func(w io.Writer) {
				fmt.Fprintf(w, "host %s is forgotten (last seen %s)\n", termsafe.String(h.ID), h.LastSeen.Format(time.RFC3339))
			})
		},
	}
	host.AddCommand(drain, undrain, forget)
	return host
}

// warmCounts shows a host's warm containers as "basic:2 lite:1", "-" for
// none.
func warmCounts(warm map[string]int) string {
	if len(warm) == 0 {
		return "-"
	}
	var parts []string
	for _, t := range slices.Sorted(maps.Keys(warm)) {
		parts = append(parts, fmt.Sprintf("%s:%d", termsafe.String(t), warm[t]))
	}
	return strings.Join(parts, " ")
}
