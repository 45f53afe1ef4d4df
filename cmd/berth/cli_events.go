package main

import (
	"time"

	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
	"github.com/berthdev/berth/schemas"
)

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func eventsCmd(g *globals) *cobra.Command {
	var follow, all bool
	var after int64
	cmd := &cobra.Command{
		Use:   "events (NAME | --all)",
		Short: "Print a sandbox's event stream (from its workflow history), one line per event",
		Long: `Print the events of a sandbox's whole life, read from its Temporal workflow
history: created, start-requested, started, sleep-requested, backup-created,
stopped, configured, … One line per event; --json prints the raw envelopes
{offset, type, payload, createdAt, path}, one per line. -f follows live
events; --after N starts after offset N. --all prints the catalogue: one
create-requested per sandbox ever claimed.`,
		Example: `  berth events demo
  berth events demo -f --after 12
  berth events --all --json`,
		GroupID: "sandbox",
		Args: func(cmd *cobra.Command, args []string) error {
			if all && len(args) > 0 || !all && len(args) != 1 {
				return usageError{fmt.Errorf("give a sandbox NAME, or --all for the catalogue")}
			}
			return nil
		},
		ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			seq := c.CatalogEvents(ctx, after, follow)
			if !all {
				seq = c.Events(ctx, args[0], after, follow)
			}
			w := cmd.OutOrStdout()
			n := 0
			for ev, err := range seq {
				if err != nil {
					if ctx.Err() != nil {
						return nil // Ctrl-C ends a follow
					}
					return err
				}
				n++
				if g.json {
					err = writeJSONLine(w, ev)
				} else {
					_, err = fmt.Fprintln(w, eventLine(ev, all))
				}
				if err != nil {
					return err
				}
			}
			if n == 0 && !g.json && !follow {
				fmt.Fprintln(cmd.ErrOrStderr(), "no events")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&follow, "follow", "f", false, "keep streaming live events (Ctrl-C ends)")
	f.BoolVar(&all, "all", false, "the catalogue of all sandboxes (create-requested events)")
	f.Int64Var(&after, "after", 0, "start after this offset")
	return cmd
}

// eventLine renders one event for a person:
// "   4  2025-06-01 12:00:03  started", escaped: payloads quote paths and
// errors from the sandbox.
func eventLine(ev client.Event, withPath bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%5d  %s  %-18s", ev.Offset, ev.CreatedAt.Local().Format("2006-01-02 15:04:05.000"), client.ShortType(ev.Type))
	if withPath {
		fmt.Fprintf(&b, "  %s", strings.TrimPrefix(ev.Path, api.CatalogPath+"/"))
	}
	if who := actorText(ev.Actor); who != "" {
		b.WriteString("  by " + who)
	}
	if d := eventDetails(ev); d != "" {
		b.WriteString("  " + d)
	}
	return termsafe.String(strings.TrimRight(b.String(), " "))
}

// actorText says who caused an event: "admin", "system", a scoped token
// as name(id), or a preview visit as preview(port N).
func actorText(a *api.Actor) string {
	switch {
	case a == nil:
		return ""
	case a.Kind == api.ActorToken:
		return fmt.Sprintf("%s(%s)", strings.ReplaceAll(a.Name, " ", "_"), a.ID)
	case a.Kind == api.ActorPreview:
		return "preview(port " + a.ID + ")"
	}
	return a.Kind
}

// eventDetails summarises a payload. Env values are not printed: they may be
// secret placeholders a person would rather not have on screen.
func eventDetails(ev client.Event) string {
	p := schemas.NewPayload(ev.Type)
	if p == nil || json.Unmarshal(ev.Payload, p) != nil {
		if len(ev.Payload) > 0 && string(ev.Payload) != "{}" && string(ev.Payload) != "null" {
			return string(ev.Payload)
		}
		return ""
	}
	switch v := p.(type) {
	case *schemas.CreateRequested:
		s := strings.TrimPrefix(v.Path, api.CatalogPath+"/") + " " + v.InstanceType
		if v.SleepAfter != "" {
			s += ", sleeps after " + v.SleepAfter
		}
		if v.KeepAlive != nil && *v.KeepAlive {
			s += ", keep-alive"
		}
		return s + envKeys(keysOf(v.Env))
	case *schemas.Created:
		s := v.Config.InstanceType + ", sleeps after " + v.Config.SleepAfter
		if v.Config.KeepAlive {
			s = v.Config.InstanceType + ", keep-alive"
		}
		return s + envKeys(keysOf(v.Config.Env))
	case *schemas.Dozed:
		return "no client for " + v.DozeAfter + ": frozen in place"
	case *schemas.Thawed:
		return "thawed by " + v.Cause + " after " + (time.Duration(v.DozedMs) * time.Millisecond).Round(time.Millisecond).String()
	case *schemas.Configured:
		var set, unset []string
		for k, val := range v.Env {
			if val == nil {
				unset = append(unset, k)
			} else {
				set = append(set, k)
			}
		}
		sort.Strings(set)
		sort.Strings(unset)
		var parts []string
		if len(set) > 0 {
			parts = append(parts, "set "+strings.Join(set, " "))
		}
		if len(unset) > 0 {
			parts = append(parts, "unset "+strings.Join(unset, " "))
		}
		return strings.Join(parts, "; ")
	case *schemas.BackupCreated:
		return "backup " + v.BackupID
	case *schemas.WorkspaceRestored:
		return "from backup " + v.BackupID
	case *schemas.BackupFailed:
		return v.Error
	}
	return ""
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func envKeys(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return ", env " + strings.Join(keys, " ")
}
