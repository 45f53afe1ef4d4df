package main

// The lifecycle verbs: start, sleep, kill, rm, each waiting with a
// progress line for the workflow to carry the operation out.

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

var lifecycleText = map[string]struct{ short, doing, done string }{
	"start": {"Boot the sandbox's container, restoring /workspace", "starting", "is running"},
	"sleep": {"Back up /workspace and remove the container", "putting to sleep", "is asleep; /workspace is kept and the next start or exec restores it"},
	"kill":  {"Restart the sandbox's workflow run (the container keeps running)", "restarting the workflow of", "continues in a fresh workflow run"},
	"rm":    {"Destroy the sandbox: container, volume and name (never reusable)", "destroying", "is destroyed; its name is never reused"},
}

// runLifecycle calls op with a progress spinner and prints the result.
func runLifecycle(cmd *cobra.Command, g *globals, op, name string) error {
	return runLifecycleWith(cmd, g, op, name, client.StartOptions{})
}

// runLifecycleWith is runLifecycle with the options of a start.
func runLifecycleWith(cmd *cobra.Command, g *globals, op, name string, so client.StartOptions) error {
	c, err := g.client()
	if err != nil {
		return err
	}
	start := func(ctx context.Context, name string) (*client.SandboxInfo, error) { return c.StartWith(ctx, name, so) }
	call := map[string]func(context.Context, string) (*client.SandboxInfo, error){
		"start": start, "sleep": c.Sleep, "kill": c.Kill, "rm": c.Destroy}[op]
	t := lifecycleText[op]
	began := time.Now()
	p := startProgress(t.doing + " " + name)
	stopPulls := func() {}
	if op == "start" { // a boot may pull the sandbox's image
		stopPulls = showPulls(cmd.Context(), c, name, p.setDetail)
	}
	info, err := call(cmd.Context(), name)
	stopPulls()
	p.end()
	if err != nil {
		return err
	}
	if info == nil {
		info = &client.SandboxInfo{Name: name}
	}
	return g.out(cmd, viewOf(info), func(w io.Writer) {
		fmt.Fprintf(w, "sandbox %s %s (%s)\n", termsafe.String(name), t.done, time.Since(began).Round(10*time.Millisecond))
	})
}

func lifecycleCmd(g *globals, op string) *cobra.Command {
	return &cobra.Command{
		Use: op + " NAME", Short: lifecycleText[op].short, GroupID: "sandbox",
		Args: cobra.ExactArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error { return runLifecycle(cmd, g, op, args[0]) },
	}
}

// startCmd is the start verb with --backup, the way back from a corrupt
// newest backup.
func startCmd(g *globals) *cobra.Command {
	var so client.StartOptions
	cmd := lifecycleCmd(g, "start")
	cmd.Flags().StringVar(&so.BackupID, "backup", "", "restore this backup instead of the newest (`berth backups NAME` lists them); the sandbox must not be running")
	cmd.Flags().BoolVar(&so.AllowRollback, "allow-rollback", false, "accept the newest backup (or an empty workspace) when the host that held newer data is lost")
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return runLifecycleWith(cmd, g, "start", args[0], so) }
	return cmd
}

func rmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME", Aliases: []string{"destroy"}, Short: lifecycleText["rm"].short, GroupID: "sandbox",
		Args: cobra.ExactArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error { return runLifecycle(cmd, g, "rm", args[0]) },
	}
}

// killCmd is two verbs: `berth kill NAME` restarts the sandbox's workflow
// run; `berth kill NAME ID` signals a process group.
func killCmd(g *globals) *cobra.Command {
	var sig string
	cmd := &cobra.Command{
		Use:   "kill NAME [ID]",
		Short: "Signal a process (with ID), or restart the sandbox's workflow run (without)",
		Long: `berth kill NAME ID [--signal S] signals the process group of process ID
(default SIGTERM; killing an exited process just shows its final state).

berth kill NAME ends the sandbox's current workflow run and continues it as a
fresh run; the container and its processes are untouched.`,
		GroupID: "process",
		Args:    cobra.RangeArgs(1, 2), ValidArgsFunction: completeProcess(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if cmd.Flags().Changed("signal") {
					return usageError{fmt.Errorf("--signal needs a process ID: berth kill %s ID --signal %s", args[0], sig)}
				}
				return runLifecycle(cmd, g, "kill", args[0])
			}
			s, err := parseSignal(sig)
			if err != nil {
				return err
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			info, err := c.Sandbox(args[0]).Process(args[1]).Kill(cmd.Context(), s)
			if err != nil {
				return err
			}
			return g.out(cmd, info, func(w io.Writer) {
				id, n := termsafe.String(info.ID), termsafe.String(args[0])
				if info.State == "running" {
					fmt.Fprintf(w, "sent %s to process %s; `berth wait %s %s` waits for its exit\n", signalName(s), id, n, id)
				} else {
					fmt.Fprintf(w, "process %s %s\n", id, describeExit(info))
				}
			})
		},
	}
	cmd.Flags().StringVarP(&sig, "signal", "s", "TERM", "signal for a process: TERM, KILL, INT, HUP, QUIT, USR1, USR2 or a number")
	return cmd
}
