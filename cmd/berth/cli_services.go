package main

// berth service add|rm|ls: the services a sandbox runs on every boot.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

func serviceCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "service", Short: "Manage the services a sandbox starts on every boot", GroupID: "sandbox"}
	cmd.AddCommand(serviceAddCmd(g), serviceRmCmd(g), serviceLsCmd(g))
	return cmd
}

// printServices shows each service's declaration and, while the sandbox
// runs, its state, pid, restarts and how its previous run ended.
func printServices(g *globals, cmd *cobra.Command, list []client.ServiceStatus) error {
	if list == nil {
		list = []client.ServiceStatus{}
	}
	return g.out(cmd, list, func(w io.Writer) {
		if len(list) == 0 {
			fmt.Fprintln(w, "no services")
			return
		}
		fmt.Fprintf(w, "%-20s %-10s %-6s %-9s %-7s %-8s %-10s %s\n", "NAME", "RESTART", "PORT", "STATE", "PID", "RESTARTS", "LAST EXIT", "COMMAND")
		for _, s := range list {
			fmt.Fprintf(w, "%-20s %-10s %-6s %-9s %-7s %-8d %-10s %s\n", termsafe.String(s.Name), s.Restart, orDash(s.Port),
				dashIfEmpty(s.State), orDash(s.PID), s.Restarts, lastExit(s), termsafe.String(strings.Join(s.Argv, " ")))
			if s.LastError != "" {
				fmt.Fprintf(w, "  last error: %s\n", termsafe.String(s.LastError))
			}
		}
	})
}

func orDash(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-" // the sandbox runs no container
	}
	return s
}

func lastExit(s client.ServiceStatus) string {
	switch e := s.LastExit; {
	case e == nil:
		return "-"
	case e.Signal != 0:
		return "signal " + strconv.Itoa(e.Signal)
	default:
		return "code " + strconv.Itoa(e.Code)
	}
}

func serviceAddCmd(g *globals) *cobra.Command {
	var restart, cwd string
	var port int
	var env []string
	cmd := &cobra.Command{
		Use:     "add NAME SVC [--restart always|on-failure] [--port N] -- ARGV...",
		Short:   "Declare (or replace) a service; a running sandbox starts it at once",
		Example: "  berth service add demo web --port 8000 -- python3 -m http.server 8000\n  berth service add demo worker --restart on-failure -- sh -c './work.sh'",
		Args:    cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 2 {
				return fmt.Errorf("give the command after --: berth service add NAME SVC -- ARGV...")
			}
			s := client.Service{Name: args[1], Argv: args[2:], Cwd: cwd, Port: port, Restart: restart}
			for _, kv := range env {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return fmt.Errorf("--env %q: use KEY=VALUE", kv)
				}
				if s.Env == nil {
					s.Env = map[string]string{}
				}
				s.Env[k] = v
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.PutService(cmd.Context(), args[0], s)
			if err != nil {
				return err
			}
			return printServices(g, cmd, list)
		},
	}
	f := cmd.Flags()
	f.StringVar(&restart, "restart", client.RestartAlways, "when to start it again after it exits: always or on-failure")
	f.IntVar(&port, "port", 0, "the port it serves on (1-65535), if any")
	f.StringVar(&cwd, "cwd", "", "working directory (default /workspace)")
	f.StringArrayVar(&env, "env", nil, "KEY=VALUE for the service only (repeatable)")
	return cmd
}

func serviceRmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "rm NAME SVC", Short: "Remove a service; its run is stopped", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.RemoveService(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return printServices(g, cmd, list)
		},
	}
}

func serviceLsCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "ls NAME", Short: "List a sandbox's declared services and, while it runs, their state", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			list, err := c.ListServices(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printServices(g, cmd, list)
		},
	}
}
