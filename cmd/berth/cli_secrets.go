package main

// berth secret set / ls / rm: the egress secret store. Values are read
// from stdin, never from arguments (which land in shell history and ps).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/termsafe"
)

func secretCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "secret", Short: "Manage secrets substituted for getSecret(\"NAME\") at egress", GroupID: "sandbox"}
	cmd.AddCommand(secretSetCmd(g), secretLsCmd(g), secretRmCmd(g), secretKeysCmd(g), secretRekeyCmd(g))
	return cmd
}

// readSecretValue reads the value from stdin: without echo on a terminal,
// else all of it; one trailing newline (CRLF too) is dropped.
func readSecretValue(cmd *cobra.Command) (string, error) {
	in := cmd.InOrStdin()
	var b []byte
	var err error
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(cmd.ErrOrStderr(), "value (not echoed): ")
		b, err = term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
	} else {
		b, err = io.ReadAll(io.LimitReader(in, 1<<20))
	}
	if err != nil {
		return "", fmt.Errorf("reading the secret value from stdin: %w", err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return "", errors.New("no value on stdin: pipe it in, e.g. `printf %s \"$TOKEN\" | berth secret set NAME --host api.github.com`")
	}
	return string(b), nil
}

func secretSetCmd(g *globals) *cobra.Command {
	var hosts []string
	cmd := &cobra.Command{
		Use: "set NAME --host HOST [--host HOST2]", Short: "Create or rotate a secret; the value is read from stdin",
		Example: "  gh auth token | berth secret set github --host api.github.com\n  berth secret set openai --host api.openai.com   # prompts without echo",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(hosts) == 0 {
				return errors.New("give at least one --host the secret may be sent to (e.g. --host api.github.com)")
			}
			value, err := readSecretValue(cmd)
			if err != nil {
				return err
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			rec, created, err := c.SetSecret(cmd.Context(), args[0], value, hosts)
			if err != nil {
				return err
			}
			return g.out(cmd, rec, func(w io.Writer) {
				verb := "rotated"
				if created {
					verb = "created"
				}
				fmt.Fprintf(w, "%s secret %s (version %d) for %s; use getSecret(%q) in a sandbox env or request\n",
					verb, termsafe.String(rec.Name), rec.Version, termsafe.String(strings.Join(rec.Hosts, ", ")), rec.Name)
			})
		},
	}
	cmd.Flags().StringArrayVar(&hosts, "host", nil, "a host the value may be sent to: exact or *.suffix (repeatable)")
	return cmd
}

func secretLsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "ls", Short: "List secrets (never their values)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.ListSecrets(cmd.Context())
			if err != nil {
				return err
			}
			return g.out(cmd, list, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tHOSTS\tVERSION\tUPDATED")
				for _, s := range list {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", termsafe.String(s.Name), termsafe.String(strings.Join(s.Hosts, ",")),
						s.Version, s.UpdatedAt.Local().Format(time.RFC3339))
				}
				tw.Flush()
			})
		},
	}
}

func secretRmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME", Short: "Delete a secret (requests that use it fail from then on)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			if err := c.DeleteSecret(cmd.Context(), args[0]); err != nil {
				return err
			}
			return g.out(cmd, map[string]string{"deleted": args[0]}, func(w io.Writer) {
				fmt.Fprintf(w, "deleted secret %s\n", termsafe.String(args[0]))
			})
		},
	}
}

func secretKeysCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "keys", Short: "Show which keys sealed the secret store (ids, never keys)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			k, err := c.SecretKeys(cmd.Context())
			if err != nil {
				return err
			}
			return g.out(cmd, k, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "KEY\tSECRETS\tSEALED\t")
				ids := map[string]bool{k.Current: true}
				for id := range k.Secrets {
					ids[id] = true
				}
				for id := range k.Sealed {
					ids[id] = true
				}
				for _, id := range slices.Sorted(maps.Keys(ids)) {
					name, note := id, ""
					if id == "" {
						name = "(no id)"
					}
					if id == k.Current {
						note = "current"
					} else if k.Secrets[id]+k.Sealed[id] > 0 {
						note = "retired: run `berth secret rekey`"
					}
					fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", name, k.Secrets[id], k.Sealed[id], note)
				}
				tw.Flush()
			})
		},
	}
}

func secretRekeyCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rekey",
		Short: "Seal every secret a retired key sealed again under BERTH_SECRETS_KEY",
		Long: "After a key rotation (the new key in BERTH_SECRETS_KEY, the old one in BERTH_SECRETS_RETIRED_KEYS\n" +
			"on every gateway and worker), rekey seals the store's objects under the new key; then the old one may go.\n" +
			"Run it when no secret is being set.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			n, err := c.RekeySecrets(cmd.Context())
			if err != nil {
				return err
			}
			return g.out(cmd, api.SecretsRekeyed{Resealed: n}, func(w io.Writer) {
				fmt.Fprintf(w, "sealed %d objects again under the current key\n", n)
			})
		},
	}
}
