package main

// The backup verbs: backup (a snapshot now) and backups (the list).

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func backupCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "backup NAME", Short: "Snapshot a running sandbox's /workspace (it keeps running)", GroupID: "sandbox",
		Args: cobra.ExactArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			start := time.Now()
			p := startProgress("backing up " + args[0])
			b, err := c.CreateBackup(cmd.Context(), args[0])
			p.end()
			if err != nil {
				return err
			}
			return g.out(cmd, b, func(w io.Writer) {
				fmt.Fprintf(w, "backup %s of %s: %d files, %s (%s stored) in %s\n", termsafe.String(b.BackupID), termsafe.String(args[0]), b.Files,
					humanBytes(b.Bytes), humanBytes(b.Size), time.Since(start).Round(10*time.Millisecond))
			})
		},
	}
}

func backupsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "backups NAME", Short: "List a sandbox's workspace backups, newest first", GroupID: "sandbox",
		Args: cobra.ExactArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.ListBackups(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if list == nil {
				list = []client.BackupInfo{}
			}
			return g.out(cmd, list, func(w io.Writer) {
				if len(list) == 0 {
					n := termsafe.String(args[0])
					fmt.Fprintf(w, "no backups of %s yet (one is made on every sleep, or with `berth backup %s`)\n", n, n)
					return
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "BACKUP\tCREATED\tFILES\tSIZE\tSTORED\tEXPIRES")
				for _, b := range list {
					exp := "-"
					if !b.ExpiresAt.IsZero() {
						exp = b.ExpiresAt.Local().Format("2006-01-02 15:04")
					}
					id := termsafe.String(b.BackupID)
					if b.Bad {
						id += " (bad: failed to restore)"
					}
					if r := b.Rescued; r != nil {
						id += fmt.Sprintf(" (rescued from host %s, lost %s)", termsafe.String(r.Host), r.LostAt.Local().Format("2006-01-02 15:04:05"))
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", id, b.CreatedAt.Local().Format("2006-01-02 15:04:05"),
						b.Files, humanBytes(b.Bytes), humanBytes(b.Size), exp)
				}
				tw.Flush()
			})
		},
	}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
