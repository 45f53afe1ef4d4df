package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

const rootLong = `berth: durable sandboxes for AI agents.

Server commands run Berth; every other command talks to a gateway found
through BERTH_URL and BERTH_TOKEN, or the client.json that ` + "`berth dev`" + ` writes
into BERTH_DATA_DIR (default .berth) and into the user's config directory
(~/.config/berth/client.json, or $XDG_CONFIG_HOME/berth/client.json;
one there that names another gateway is left alone).`

// globals are the flags every client verb shares.
type globals struct {
	url, token string
	json       bool
}

// clientCommands are the verbs that talk to a gateway.
func clientCommands(g *globals) []*cobra.Command {
	return append([]*cobra.Command{
		// Sandboxes (cli_sandbox.go, cli_lifecycle.go, cli_backups.go, cli_fork.go).
		createCmd(g), lsCmd(g), getCmd(g), startCmd(g), lifecycleCmd(g, "sleep"), killCmd(g), rmCmd(g),
		envCmd(g), backupCmd(g), backupsCmd(g), egressCmd(g), secretCmd(g), tokenCmd(g), forkCmd(g),
		serviceCmd(g),          // cli_services.go
		statsCmd(g), topCmd(g), // cli_stats.go, cli_top.go
		// Processes (cli_process.go), terminals (cli_shell.go).
		execCmd(g), psCmd(g), logsCmd(g), waitCmd(g), shellCmd(g),
		// Files (cli_files*.go), events (cli_events.go).
		cpCmd(g), catCmd(g), eventsCmd(g), watchCmd(g), // cli_watch.go
		mcpCmd(g), // MCP server (mcp.go)
	}, append(portsCmds(g), hostCmds(g)...)...) // preview URLs (cli_ports.go), hosts (cli_hosts.go)
}

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use: "berth", Short: "Durable sandboxes for AI agents", Long: rootLong,
		Version:       version,
		SilenceErrors: true, SilenceUsage: true,
	}
	root.AddGroup(&cobra.Group{ID: "server", Title: "Running Berth:"},
		&cobra.Group{ID: "sandbox", Title: "Sandboxes:"},
		&cobra.Group{ID: "process", Title: "Processes:"})
	pf := root.PersistentFlags()
	pf.StringVar(&g.url, "url", "", "gateway URL (default $BERTH_URL, else client.json from 'berth dev')")
	pf.StringVar(&g.token, "token", "", "bearer token (default $BERTH_TOKEN, else client.json or token from 'berth dev')")
	pf.BoolVar(&g.json, "json", false, "print JSON instead of text")
	root.AddCommand(serverCommands()...)
	root.AddCommand(clientCommands(g)...)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nSee '%s --help'.", err, c.CommandPath())}
	})
	return root
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// connection finds the gateway: flags, then BERTH_URL/BERTH_TOKEN, then
// $BERTH_DATA_DIR/client.json (default .berth) as `berth dev` wrote it, then
// the same file in the user's config directory (`berth dev` writes it there
// too, so the CLI works from any directory), then $BERTH_DATA_DIR/token.
func (g *globals) connection() (url, token string, err error) {
	url, token = g.url, g.token
	if url == "" {
		url = os.Getenv("BERTH_URL")
	}
	if token == "" {
		token = os.Getenv("BERTH_TOKEN")
	}
	dir := os.Getenv("BERTH_DATA_DIR")
	if dir == "" {
		dir = ".berth"
	}
	local := filepath.Join(dir, "client.json")
	user, uerr := userClientConfig()
	for _, p := range []string{local, user} {
		if p == "" || url != "" && token != "" {
			continue
		}
		var cfg struct{ URL, Token string }
		if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &cfg) == nil {
			if url == "" {
				url = cfg.URL
			}
			// A token only goes with its own gateway.
			if token == "" && (url == cfg.URL || cfg.URL == "") {
				token = cfg.Token
			}
		}
	}
	if token == "" {
		if b, err := os.ReadFile(filepath.Join(dir, "token")); err == nil {
			token = strings.TrimSpace(string(b))
		}
	}
	if url == "" {
		where := local
		if uerr == nil {
			where += " and " + user
		}
		return "", "", errors.New("no gateway configured: run `berth dev` (it writes " + where +
			"), or set BERTH_URL and BERTH_TOKEN")
	}
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	return url, token, nil
}

// userClientConfig is client.json in the user's config directory
// ($XDG_CONFIG_HOME/berth, else ~/.config/berth on Linux), where
// `berth dev` also writes it.
func userClientConfig() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "berth", "client.json"), nil
}

// client builds an SDK client; errors are reported with a hint.
func (g *globals) client() (*client.Client, error) {
	url, token, err := g.connection()
	if err != nil {
		return nil, err
	}
	return client.New(url, token), nil
}

// out writes human text or, with --json, v as indented JSON.
func (g *globals) out(cmd *cobra.Command, v any, text func(w io.Writer)) error {
	w := cmd.OutOrStdout()
	if g.json {
		return writeJSON(w, v)
	}
	text(w)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// exitCode prints err the way a person (or, with --json, a program) can act
// on, and returns the process exit status.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	jsonOut := false
	for _, a := range os.Args[1:] {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			jsonOut = true
		}
	}
	msg, hint, code := describeError(err)
	if jsonOut {
		_ = json.NewEncoder(os.Stderr).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg, "hint": hint}})
	} else {
		// Messages quote sandbox paths and the gateway's words: no
		// control character of theirs reaches the terminal.
		fmt.Fprintln(os.Stderr, "berth: "+termsafe.Lines(msg))
		if hint != "" {
			fmt.Fprintln(os.Stderr, "  "+termsafe.Lines(hint))
		}
	}
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// describeError turns an error into what happened and what to do.
func describeError(err error) (msg, hint, code string) {
	var ae *client.Error
	if !errors.As(err, &ae) {
		var ne net.Error
		var oe *net.OpError
		switch {
		case errors.As(err, &oe) || errors.As(err, &ne):
			return "cannot reach the gateway: " + err.Error(),
				"is Berth running? Start it with `berth dev`, or point BERTH_URL at your gateway", "UNREACHABLE"
		case errors.Is(err, context.Canceled):
			return "interrupted", "", "INTERRUPTED"
		}
		return err.Error(), "", ""
	}
	msg = ae.Message
	if msg == "" {
		msg = ae.Code
	}
	hint = hintFor(client.ErrorCode(ae.Code))
	if ae.Code == string(client.ErrContainerUnavailable) || ae.Retryable && hint == "" {
		after := ae.RetryAfter
		if after <= 0 {
			after = time.Second
		}
		if hint == "" {
			hint = "this is temporary"
		}
		hint += fmt.Sprintf("; retry in %s", after.Round(100*time.Millisecond))
	}
	return msg + " (" + ae.Code + ")", hint, ae.Code
}

// hintFor says what to do about an API error code: the hints of the
// lifecycle and process codes, the file codes (cli_files.go) and the
// per-sandbox limits (cli_limits.go).
func hintFor(code client.ErrorCode) string {
	for _, hints := range []map[client.ErrorCode]string{errorHints, fileHints, limitHints} {
		if h, ok := hints[code]; ok {
			return h
		}
	}
	return ""
}

// errorHints say what to do about each lifecycle and process error code.
var errorHints = map[client.ErrorCode]string{
	client.ErrValidation:           "the gateway rejected the request as invalid; check the arguments (`berth <command> --help`)",
	client.ErrImageNotAllowed:      "the operator allows only the images BERTH_IMAGES names; pick one of those (or leave --image out for the type's image)",
	client.ErrImageNotFound:        "no registry knows that image: check its name and tag (`docker pull` it on a worker to see the registry's answer)",
	client.ErrImageAuthFailed:      "the registry refused the workers' credentials: fix its entry in the workers' BERTH_REGISTRY_AUTH (a Docker config.json)",
	client.ErrImageUnsupported:     "Berth cannot run this image as a sandbox (the message says why); fix the image and create a new sandbox",
	client.ErrImagePullFailed:      "the registry could not be reached; retry in a few seconds (nothing was created)",
	client.ErrUnauthorized:         "the token is missing or wrong: set BERTH_TOKEN to the token `berth dev` printed (it is in .berth/token)",
	client.ErrForbidden:            "this scoped token does not reach that (the message names the scope it lacks): ask whoever holds BERTH_TOKEN for a token with it (`berth token create`)",
	client.ErrTokenNotFound:        "no such token (revoked already?): `berth token ls` lists them",
	client.ErrSandboxNotFound:      "list sandboxes with `berth ls`, or create this one with `berth create NAME`",
	client.ErrProcessNotFound:      "the sandbox's current container has no such process; list them with `berth ps NAME`",
	client.ErrNameConflict:         "a sandbox of this name exists with another configuration: pick another name, or see it with `berth get NAME`",
	client.ErrStaleProcessHandle:   "the process belonged to a container that has since stopped or been replaced; run it again with `berth exec`",
	client.ErrInvalidCursor:        "the cursor is not one of this process's; omit --since to read from the start",
	client.ErrSandboxDestroyed:     "names are never reused: create a sandbox with a new name",
	client.ErrPayloadTooLarge:      "the request is too large; send less at once",
	client.ErrContainerUnavailable: "the sandbox's container is not ready (booting or being replaced)",
	client.ErrWaitTimeout:          "the wait ended; the process keeps running (`berth wait NAME ID` again, or `berth kill NAME ID`)",
	client.ErrExecutableNotFound:   "no such executable in the sandbox: give a full path, or run a shell: berth exec NAME -- sh -c '...'",
	client.ErrInvalidCwd:           "the working directory does not exist in the sandbox; create it first or change --cwd",
	client.ErrExecFailed:           "the process could not be started; check the command and the sandbox's image",
	client.ErrProcessNotRunning:    "the process has already exited; see its output with `berth logs NAME ID`",
	client.ErrProcessExited:        "the process exited before the condition held; see its output with `berth logs NAME ID`",
	client.ErrStdinNotPiped:        "the process was started without a stdin pipe",
	client.ErrStdinClosed:          "the process's stdin is already closed",
	client.ErrSandboxNotRunning:    "start the sandbox first with `berth start NAME`",
	client.ErrRollbackNeeded:       "the newest workspace is on a lost host: bring that host back, or accept the older workspace with `berth start NAME --allow-rollback`",
	client.ErrNoCapacity:           "every live host is full (`berth hosts` shows them): sleep or remove a sandbox, or add a host",
	client.ErrBootFailed:           "the container could not start; the worker's log says why (is the image there? is Docker up?)",
	client.ErrBackupFailed:         "the snapshot failed; the previous backup is still the restore source. Retry, and check the backup store",
	client.ErrBackupStore:          "the backup store (BERTH_BACKUP_URL) is not reachable",
	client.ErrBackupNotFound:       "no such backup of this sandbox: `berth backups NAME` lists them",
	client.ErrRestoreFailed:        "the backup is corrupt (now marked bad): start from an older one with `berth start NAME --backup ID` (`berth backups NAME` lists them)",
	client.ErrTemporalUnavailable:  "the gateway cannot reach Temporal; is the Temporal server (or `berth dev`) running?",
	client.ErrTimeout:              "the operation goes on in the background; check with `berth get NAME` in a moment",
	client.ErrTerminalNotFound:     "no such terminal in the sandbox's current container",
	client.ErrRouteNotFound:        "the gateway does not know this route: are the berth CLI and the gateway the same version?",
	client.ErrMethodNotAllowed:     "the gateway does not allow this here: are the berth CLI and the gateway the same version?",
	client.ErrInternal:             "the gateway failed unexpectedly; its log says why. Retrying may help",
	client.ErrEgressUnavailable:    "the sandbox's host cannot enforce egress policies (is the worker's egress enabled?); the previous policy stays. A sleeping sandbox takes the change for its next boot",
	client.ErrSecretNotFound:       "no such secret: `berth secret ls` lists them",
	client.ErrPortNotExposed:       "the port is not exposed: `berth ports NAME` lists them",
	client.ErrStreamUnavailable:    "the event stream could not be read right now",
}
