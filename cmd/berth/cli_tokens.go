package main

// berth token create / ls / rm: scoped tokens, minted with the admin
// token (BERTH_TOKEN).

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func tokenCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "token", Short: "Mint, list and revoke scoped tokens (needs the admin token)", GroupID: "sandbox"}
	cmd.AddCommand(tokenCreateCmd(g), tokenLsCmd(g), tokenRmCmd(g))
	return cmd
}

func tokenCreateCmd(g *globals) *cobra.Command {
	var sandboxes, scopes []string
	var ttl string
	cmd := &cobra.Command{
		Use:   "create NAME --sandbox NAME|PREFIX* --scope SCOPE [--ttl 24h]",
		Short: "Mint a token limited to sandboxes, scopes and a lifetime; prints its value once",
		Long: "Scopes: " + strings.Join(api.TokenScopes(), ", ") + ".\n" +
			"read looks (get, ls, events, ports, services, backups); exec runs processes and terminals;\n" +
			"files reads and writes files (and forks from the sandbox); lifecycle creates, starts, sleeps,\n" +
			"kills, destroys and configures; secrets-admin manages the secret store (no --sandbox needed).",
		Example: "  berth token create ci --sandbox 'job-*' --scope exec --scope files --scope lifecycle --ttl 24h\n" +
			"  berth token create viewer --sandbox user-123 --scope read --ttl 1h",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := api.ParseDuration(ttl)
			if err != nil {
				return fmt.Errorf("--ttl: %w", err)
			}
			if len(scopes) == 0 {
				return errors.New("give at least one --scope: " + strings.Join(api.TokenScopes(), ", "))
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			tok, err := c.CreateToken(cmd.Context(), args[0], client.TokenOptions{Sandboxes: sandboxes, Scopes: scopes, TTL: d})
			if err != nil {
				return err
			}
			return g.out(cmd, tok, func(w io.Writer) {
				fmt.Fprintf(cmd.ErrOrStderr(), "token %s (%s): %s on %s until %s; the value is shown only now:\n",
					tok.ID, termsafe.String(tok.Name), strings.Join(tok.Scopes, ","), termsafe.String(strings.Join(tok.Sandboxes, ",")),
					tok.ExpiresAt.Local().Format(time.RFC3339))
				fmt.Fprintln(w, tok.Value)
			})
		},
	}
	cmd.Flags().StringArrayVar(&sandboxes, "sandbox", nil, "a sandbox name, or a prefix ending in * (repeatable; '*' is every sandbox)")
	cmd.Flags().StringArrayVar(&scopes, "scope", nil, "a scope: "+strings.Join(api.TokenScopes(), ", ")+" (repeatable)")
	cmd.Flags().StringVar(&ttl, "ttl", "24h", "lifetime (\"1h\", \"720h\")")
	return cmd
}

func tokenLsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "ls", Short: "List scoped tokens (never their values)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.ListTokens(cmd.Context())
			if err != nil {
				return err
			}
			return g.out(cmd, list, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tSANDBOXES\tSCOPES\tEXPIRES")
				now := time.Now()
				for _, t := range list {
					exp := t.ExpiresAt.Local().Format(time.RFC3339)
					if !now.Before(t.ExpiresAt) {
						exp += " (expired)"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, termsafe.String(t.Name), termsafe.String(strings.Join(t.Sandboxes, ",")),
						strings.Join(t.Scopes, ","), exp)
				}
				tw.Flush()
			})
		},
	}
}

func tokenRmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "rm ID", Short: "Revoke a token (every gateway refuses it within its BERTH_TOKEN_CACHE bound)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			if err := c.RevokeToken(cmd.Context(), args[0]); err != nil {
				return err
			}
			if !g.json {
				fmt.Fprintf(cmd.OutOrStdout(), "revoked token %s\n", termsafe.String(args[0]))
			}
			return nil
		},
	}
}
