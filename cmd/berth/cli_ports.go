package main

// berth expose / unexpose / ports: a sandbox's preview URLs.

import (
	"fmt"
	"io"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q: give a number 1..65535", s)
	}
	return n, nil
}

// openURL is the URL a browser can open: a private port's carries its token
// (the gateway trades it for a cookie and drops it from the address).
func openURL(p client.ExposedPort) string {
	if p.Public || p.Token == "" {
		return p.URL
	}
	return p.URL + "?berth_token=" + url.QueryEscape(p.Token)
}

// portArgs reads NAME PORT: the port checked before the client is made.
func (g *globals) portArgs(args []string) (*client.Client, int, error) {
	port, err := parsePort(args[1])
	if err != nil {
		return nil, 0, err
	}
	c, err := g.client()
	return c, port, err
}

func portsCmds(g *globals) []*cobra.Command {
	var public bool
	expose := &cobra.Command{
		Use: "expose NAME PORT", Short: "Expose a sandbox's port as a preview URL and print it", GroupID: "sandbox",
		Example: "  berth expose demo 8000\n  berth expose demo 3000 --public",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, port, err := g.portArgs(args)
			if err != nil {
				return err
			}
			p, err := c.Expose(cmd.Context(), args[0], port, public)
			if err != nil {
				return err
			}
			return g.out(cmd, p, func(w io.Writer) { fmt.Fprintln(w, termsafe.String(openURL(*p))) })
		},
	}
	expose.Flags().BoolVar(&public, "public", false, "anyone with the URL may open it (default: the URL needs the port's token)")
	unexpose := &cobra.Command{
		Use: "unexpose NAME PORT", Short: "Remove a sandbox's preview URL (it answers 410 from now on)", GroupID: "sandbox",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, port, err := g.portArgs(args)
			if err != nil {
				return err
			}
			return c.Unexpose(cmd.Context(), args[0], port)
		},
	}
	ports := &cobra.Command{
		Use: "ports NAME", Short: "List a sandbox's exposed ports and their preview URLs", GroupID: "sandbox",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			ps, err := c.Ports(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return g.out(cmd, ps, func(w io.Writer) {
				for _, p := range ps {
					vis := "private"
					if p.Public {
						vis = "public"
					}
					fmt.Fprintf(w, "%d\t%s\t%s\n", p.Port, vis, termsafe.String(openURL(p)))
				}
			})
		},
	}
	return []*cobra.Command{expose, unexpose, ports}
}
