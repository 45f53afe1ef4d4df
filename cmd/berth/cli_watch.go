package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func watchCmd(g *globals) *cobra.Command {
	var recursive bool
	var after uint64
	cmd := &cobra.Command{
		Use:   "watch NAME:PATH",
		Short: "Print changes to files of a sandbox as they happen, one line per event",
		Long: `Print create, modify, delete and rename events under PATH (a relative PATH
is under /workspace; NAME: alone is /workspace) until Ctrl-C. Each line is
the event id, the type and the path ("old -> new" for a rename, a trailing
"/" for a directory); --json prints the events as the API sends them.
A dropped connection resumes after the last event printed; --after ID
starts after an earlier event. An "overflow" line means events were lost
(the cursor was too old, or too much happened at once): look again.
A watch does not start a stopped sandbox and ends when it sleeps.`,
		Example: `  berth watch demo:
  berth watch demo:src --recursive
  berth watch demo:/workspace --recursive --json`,
		GroupID: "sandbox",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := mustRemote("watch", args[0])
			if err != nil {
				return err
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			w := cmd.OutOrStdout()
			for ev, err := range c.Sandbox(r.name).Watch(ctx, r.path, client.WatchOptions{Recursive: recursive, After: after}) {
				if err != nil {
					if ctx.Err() != nil {
						return nil // Ctrl-C
					}
					return err
				}
				if g.json {
					err = writeJSONLine(w, ev)
				} else {
					_, err = fmt.Fprintln(w, watchLine(ev))
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&recursive, "recursive", "r", false, "watch the whole tree below PATH")
	f.Uint64Var(&after, "after", 0, "start after this event id")
	return cmd
}

// watchLine renders one event for a person. Paths are written by whatever
// runs in the sandbox, so they are escaped before reaching the terminal.
func watchLine(ev client.FileEvent) string {
	name := func(p string) string {
		if ev.IsDir {
			p += "/"
		}
		return termsafe.String(p)
	}
	id := strconv.FormatUint(ev.ID, 10)
	switch ev.Type {
	case "rename":
		return fmt.Sprintf("%s  %-8s %s -> %s", id, ev.Type, name(ev.From), name(ev.Path))
	case "overflow":
		return fmt.Sprintf("%s  %-8s events were lost (%s); look again", id, ev.Type, termsafe.String(ev.Reason))
	}
	return fmt.Sprintf("%s  %-8s %s", id, termsafe.String(ev.Type), name(ev.Path))
}
