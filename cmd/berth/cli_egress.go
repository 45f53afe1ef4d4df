package main

// berth egress (show or change a sandbox's egress policy) and the
// --egress flag of create.

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// parseEgress reads "open", "none" or "allow=a.com,*.b.org,140.82.112.0/20"
// (the --egress flag of create). The gateway checks each entry.
func parseEgress(s string) (*client.EgressPolicy, error) {
	switch {
	case s == "open" || s == "none":
		return &client.EgressPolicy{Mode: s}, nil
	case strings.HasPrefix(s, "allow="):
		return allowlist(strings.TrimPrefix(s, "allow="))
	}
	return nil, fmt.Errorf("--egress %q: use open, none or allow=DOMAIN_OR_CIDR,... (e.g. allow=api.github.com,*.pypi.org)", s)
}

func isAddr(s string) bool { _, err := netip.ParseAddr(s); return err == nil }

// allowlist splits a comma-separated list into domains and CIDRs: an entry
// with a '/', or an IP address, is a CIDR.
func allowlist(list string) (*client.EgressPolicy, error) {
	p := &client.EgressPolicy{Mode: "allowlist"}
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			return nil, errors.New("empty entry in the allowlist: give DOMAIN_OR_CIDR,DOMAIN_OR_CIDR,...")
		case strings.Contains(e, "/") || isAddr(e):
			p.CIDRs = append(p.CIDRs, e)
		default:
			p.Domains = append(p.Domains, e)
		}
	}
	return p, nil
}

func describeEgress(p *client.EgressPolicy) string {
	if p == nil || p.Mode == "" || p.Mode == "open" {
		return "open (the public internet; private addresses are never reachable)"
	}
	if p.Mode == "none" {
		return "none (no network)"
	}
	return "allowlist: " + strings.Join(append(append([]string{}, p.Domains...), p.CIDRs...), ", ")
}

func egressCmd(g *globals) *cobra.Command {
	var open, none bool
	var allow string
	cmd := &cobra.Command{
		Use: "egress NAME", Short: "Show or change what a sandbox may reach on the network", GroupID: "sandbox",
		Example: "  berth egress demo\n  berth egress demo --allow api.github.com,*.pypi.org,140.82.112.0/20\n  berth egress demo --none\n  berth egress demo --open",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var p *client.EgressPolicy
			n := 0
			for _, set := range []bool{open, none, allow != ""} {
				if set {
					n++
				}
			}
			switch {
			case n > 1:
				return errors.New("give one of --open, --none, --allow")
			case open:
				p = &client.EgressPolicy{Mode: "open"}
			case none:
				p = &client.EgressPolicy{Mode: "none"}
			case allow != "":
				var err error
				if p, err = allowlist(allow); err != nil {
					return err
				}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			var info *client.SandboxInfo
			if p == nil {
				info, err = c.Get(cmd.Context(), args[0])
			} else {
				info, err = c.SetEgress(cmd.Context(), args[0], *p)
			}
			if err != nil {
				return err
			}
			return g.out(cmd, info.Egress, func(w io.Writer) {
				fmt.Fprintf(w, "%s egress: %s\n", termsafe.String(info.Name), termsafe.String(describeEgress(info.Egress)))
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&open, "open", false, "allow the public internet (the default)")
	f.BoolVar(&none, "none", false, "allow nothing")
	f.StringVar(&allow, "allow", "", "allow only these domains (exact or *.suffix) and CIDRs, comma-separated")
	return cmd
}
