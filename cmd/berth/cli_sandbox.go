package main

// The sandbox verbs that read and configure a sandbox: create, ls, get,
// env, and how a sandbox is printed.

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// sandboxView is a sandbox as the CLI prints it in JSON: the API's shape.
type sandboxView struct {
	Name         string               `json:"name"`
	InstanceType string               `json:"instanceType"`
	Status       string               `json:"status"`
	SleepAfter   string               `json:"sleepAfter"`
	KeepAlive    bool                 `json:"keepAlive"`
	DozeAfter    string               `json:"dozeAfter,omitempty"`
	Env          map[string]string    `json:"env"`
	Image        string               `json:"image,omitempty"`
	ImageDigest  string               `json:"imageDigest,omitempty"`
	LastBackupID string               `json:"lastBackupId,omitempty"`
	Host         string               `json:"host,omitempty"`
	Egress       *client.EgressPolicy `json:"egress,omitempty"`
	CreatedAt    time.Time            `json:"createdAt"`
	UpdatedAt    time.Time            `json:"updatedAt"`
}

func viewOf(s *client.SandboxInfo) sandboxView {
	env := s.Env
	if env == nil {
		env = map[string]string{}
	}
	doze := ""
	if s.DozeAfter > 0 {
		doze = s.DozeAfter.String()
	}
	return sandboxView{Name: s.Name, InstanceType: s.InstanceType, Status: s.Status, SleepAfter: s.SleepAfter.String(), DozeAfter: doze,
		KeepAlive: s.KeepAlive, Env: env, Image: s.Image, ImageDigest: s.ImageDigest, LastBackupID: s.LastBackupID, Host: s.Host, Egress: s.Egress, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

func createCmd(g *globals) *cobra.Command {
	var typ, image, sleepAfter, dozeAfter string
	var keepAlive, start bool
	var env []string
	var egress string
	cmd := &cobra.Command{
		Use: "create NAME", Short: "Claim a sandbox name (no container runs until it starts; --start boots it now)", GroupID: "sandbox",
		Example: "  berth create demo --sleep-after 5m --env MODE=dev\n  berth create demo --start",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := client.CreateRequest{Name: args[0], InstanceType: typ, Image: image, KeepAlive: keepAlive, Start: start}
			if sleepAfter != "" {
				d, err := parseDuration(sleepAfter)
				if err != nil {
					return err
				}
				req.SleepAfter = d
			}
			if dozeAfter != "" {
				d, err := parseDuration(dozeAfter)
				if err != nil {
					return err
				}
				req.DozeAfter = &d
			}
			e, err := parseEnv(env)
			if err != nil {
				return err
			}
			if len(e) > 0 {
				req.Env = e
			}
			if egress != "" {
				if req.Egress, err = parseEgress(egress); err != nil {
					return err
				}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			info, created, err := c.Create(cmd.Context(), req)
			if err != nil {
				return err
			}
			return g.out(cmd, viewOf(info), func(w io.Writer) {
				idle := "sleeps after " + info.SleepAfter.String() + " idle"
				if info.KeepAlive {
					idle = "kept alive"
				}
				n := termsafe.String(info.Name)
				if created && start {
					fmt.Fprintf(w, "created sandbox %s (%s, %s) and started booting it; `berth exec %s -- CMD` runs once it is up\n",
						n, termsafe.String(info.InstanceType), idle, n)
				} else if created {
					fmt.Fprintf(w, "created sandbox %s (%s, %s); `berth start %s` boots it, `berth exec %s -- CMD` too\n",
						n, termsafe.String(info.InstanceType), idle, n, n)
				} else {
					fmt.Fprintf(w, "sandbox %s already exists with this configuration (%s)\n", n, termsafe.String(info.Status))
				}
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "", "instance type: lite, basic (default), standard-1 … standard-4, or a custom one")
	f.StringVar(&image, "image", "", "the sandbox's own image (any ref Docker can pull, e.g. python:3.12), fixed for its life; default: the type's image")
	f.StringVar(&sleepAfter, "sleep-after", "", "idle time before the sandbox sleeps (30s, 3m, 1h; default 10m)")
	f.BoolVar(&keepAlive, "keep-alive", false, "never sleep when idle")
	f.StringVar(&dozeAfter, "doze-after", "", "time without a client before the sandbox dozes: frozen in place, thawed by the next command (0: never; default: the server's)")
	f.BoolVar(&start, "start", false, "boot the sandbox now, without waiting for it")
	f.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE (repeatable)")
	f.StringVar(&egress, "egress", "", "egress policy: open (default), none, or allow=DOMAIN_OR_CIDR,... (e.g. allow=api.github.com,*.pypi.org)")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(
		[]cobra.Completion{"lite", "basic", "standard-1", "standard-2", "standard-3", "standard-4"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

var statuses = []string{"created", "starting", "running", "dozing", "stopping", "stopped", "destroying", "destroyed"}

func lsCmd(g *globals) *cobra.Command {
	var status string
	var files *lsFileOptions
	cmd := &cobra.Command{
		Use: "ls [NAME:PATH]", Aliases: []string{"list"}, Short: "List sandboxes (destroyed ones only with --status destroyed), or a directory in one", GroupID: "sandbox",
		Args: cobra.MaximumNArgs(1), ValidArgsFunction: completeRemote(g, false, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return files.run(cmd, g, args[0]) // cli_files.go
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.List(cmd.Context(), status)
			if err != nil {
				return err
			}
			views := make([]sandboxView, len(list))
			for i := range list {
				views[i] = viewOf(&list[i])
			}
			return g.out(cmd, views, func(w io.Writer) {
				if len(views) == 0 {
					fmt.Fprintln(w, "no sandboxes; create one with `berth create NAME`")
					return
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSTATUS\tTYPE\tSLEEP AFTER\tHOST\tUPDATED")
				for _, v := range views {
					sleep := v.SleepAfter
					if v.KeepAlive {
						sleep = "never"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.String(v.Name), termsafe.String(v.Status),
						termsafe.String(v.InstanceType), sleep, dash(termsafe.String(v.Host)), ago(v.UpdatedAt))
				}
				tw.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only sandboxes in this status ("+strings.Join(statuses, ", ")+")")
	files = addLsFileFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(statuses, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ago renders a time relative to now for tables.
func ago(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02")
}

func printSandbox(w io.Writer, v sandboxView) {
	e := termsafe.String // env values and the rest are not the terminal's to obey
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "name:\t%s\n", e(v.Name))
	fmt.Fprintf(tw, "status:\t%s\n", e(v.Status))
	fmt.Fprintf(tw, "instance type:\t%s\n", e(v.InstanceType))
	if v.Image != "" {
		fmt.Fprintf(tw, "image:\t%s (%s)\n", e(v.Image), e(v.ImageDigest))
	}
	if v.KeepAlive {
		fmt.Fprintf(tw, "sleeps:\tnever (keep-alive)\n")
	} else {
		fmt.Fprintf(tw, "sleeps after:\t%s idle\n", v.SleepAfter)
		if v.DozeAfter != "" {
			fmt.Fprintf(tw, "dozes after:\t%s without a client\n", v.DozeAfter)
		}
	}
	if v.Host != "" {
		fmt.Fprintf(tw, "host:\t%s\n", e(v.Host))
	}
	if v.LastBackupID != "" {
		fmt.Fprintf(tw, "last backup:\t%s\n", e(v.LastBackupID))
	}
	if v.Egress != nil {
		fmt.Fprintf(tw, "egress:\t%s\n", e(describeEgress(v.Egress)))
	}
	fmt.Fprintf(tw, "created:\t%s\n", v.CreatedAt.Local().Format(time.RFC3339))
	fmt.Fprintf(tw, "updated:\t%s\n", v.UpdatedAt.Local().Format(time.RFC3339))
	keys := make([]string, 0, len(v.Env))
	for k := range v.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		fmt.Fprintf(tw, "env:\t(none)\n")
	}
	for i, k := range keys {
		label := ""
		if i == 0 {
			label = "env:"
		}
		fmt.Fprintf(tw, "%s\t%s=%s\n", label, e(k), e(v.Env[k]))
	}
	tw.Flush()
}

func getCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "get NAME", Short: "Show a sandbox's state", GroupID: "sandbox",
		Args: cobra.ExactArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			info, err := c.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			v := viewOf(info)
			return g.out(cmd, v, func(w io.Writer) { printSandbox(w, v) })
		},
	}
}

func envCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "env NAME [set K=V… | unset K…]",
		Short: "Show or change a sandbox's env (applies to processes started afterwards)",
		Example: `  berth env demo
  berth env demo set REGION=eu MODE=prod
  berth env demo unset MODE`,
		GroupID: "sandbox",
		Args:    cobra.MinimumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				return sandboxNames(cmd.Context(), g, toComplete), cobra.ShellCompDirectiveNoFileComp
			case 1:
				return []cobra.Completion{"set", "unset"}, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			c, err := g.client()
			if err != nil {
				return err
			}
			var info *client.SandboxInfo
			switch {
			case len(args) == 1:
				info, err = c.Get(cmd.Context(), name)
			case args[1] == "set" && len(args) > 2:
				kv, perr := parseEnv(args[2:])
				if perr != nil {
					return perr
				}
				env := map[string]*string{}
				for k, v := range kv {
					env[k] = client.Ptr(v)
				}
				info, err = c.SetEnv(cmd.Context(), name, env)
			case args[1] == "unset" && len(args) > 2:
				env := map[string]*string{}
				for _, k := range args[2:] {
					env[k] = nil
				}
				info, err = c.SetEnv(cmd.Context(), name, env)
			default:
				return usageError{fmt.Errorf("usage: berth env %s [set KEY=VALUE… | unset KEY…]", name)}
			}
			if err != nil {
				return err
			}
			env := info.Env
			if env == nil {
				env = map[string]string{}
			}
			return g.out(cmd, env, func(w io.Writer) {
				keys := make([]string, 0, len(env))
				for k := range env {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(w, "%s=%s\n", termsafe.String(k), termsafe.String(env[k]))
				}
			})
		},
	}
}
