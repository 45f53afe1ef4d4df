package main

// The fork verb: a new sandbox whose workspace starts as another's.

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func forkCmd(g *globals) *cobra.Command {
	var backupID, typ, sleepAfter string
	var keepAlive bool
	cmd := &cobra.Command{
		Use:   "fork FROM NAME",
		Short: "Create NAME with a copy of FROM's workspace (a fresh snapshot if FROM runs, else its newest backup)",
		Long: "Create sandbox NAME whose /workspace starts as FROM's: a fresh snapshot when FROM is running,\n" +
			"its newest good backup otherwise, or the backup --backup names. FROM is untouched, and writes\n" +
			"in either sandbox never reach the other.",
		GroupID: "sandbox", Example: "  berth fork demo demo-try2\n  berth fork demo demo-old --backup 20260102T030405Z-0a1b2c3d",
		Args: cobra.ExactArgs(2), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := client.CreateRequest{Name: args[1], InstanceType: typ, KeepAlive: keepAlive}
			if sleepAfter != "" {
				d, err := parseDuration(sleepAfter)
				if err != nil {
					return err
				}
				req.SleepAfter = d
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			p := startProgress("forking " + args[0])
			info, created, err := c.Fork(cmd.Context(), req, client.ForkFrom{Sandbox: args[0], BackupID: backupID})
			p.end()
			if err != nil {
				return err
			}
			return g.out(cmd, viewOf(info), func(w io.Writer) {
				n, from := termsafe.String(info.Name), termsafe.String(args[0])
				if created {
					fmt.Fprintf(w, "created sandbox %s from %s (backup %s); `berth start %s` boots it\n",
						n, from, termsafe.String(info.LastBackupID), n)
				} else {
					fmt.Fprintf(w, "sandbox %s already exists as this fork of %s (%s)\n", n, from, termsafe.String(info.Status))
				}
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&backupID, "backup", "", "start from this backup of FROM (`berth backups FROM` lists them)")
	f.StringVar(&typ, "type", "", "instance type: lite, basic (default), standard-1 … standard-4, or a custom one")
	f.StringVar(&sleepAfter, "sleep-after", "", "idle time before the sandbox sleeps (30s, 3m, 1h; default 10m)")
	f.BoolVar(&keepAlive, "keep-alive", false, "never sleep when idle")
	return cmd
}
