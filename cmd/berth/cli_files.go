package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
	"github.com/berthdev/berth/internal/unixmode"
)

// fileHints say what to do about the file API's error codes.
var fileHints = map[client.ErrorCode]string{
	client.ErrFileNotFound:          "nothing is at that path in the sandbox; look with `berth ls NAME:DIR` (relative paths are under /workspace)",
	client.ErrIsDirectory:           "it is a directory: list it with `berth ls NAME:PATH`, or copy it out with `berth cp NAME:PATH LOCAL`",
	client.ErrNotDirectory:          "a component of the path is a file, not a directory",
	client.ErrNotEmpty:              "the directory is not empty",
	client.ErrAlreadyExists:         "something is already at that path",
	client.ErrNotRegular:            "only regular files and directories can be read or copied",
	client.ErrInvalidPath:           `sandbox paths are absolute (relative ones are taken under /workspace) and must not contain ".."`,
	client.ErrPathEscape:            "an archive member or symlink would lead outside the target directory; nothing was written outside it",
	client.ErrPermissionDenied:      "the sandbox's user may not access this path",
	client.ErrNoSpace:               "the sandbox's disk is full: remove files, or use a larger instance type",
	client.ErrInvalidArchive:        "the tar stream was cut or malformed; retry the copy",
	client.ErrInvalidTerminalCursor: "the terminal's output moved on; reconnect without a cursor",
}

// remoteDir is where relative sandbox paths start (exec's default cwd).
const remoteDir = "/workspace"

// remotePath is a parsed NAME:PATH argument.
type remotePath struct {
	name, path string // path is absolute and clean
	contents   bool   // PATH ended in "/." : a directory's contents, not itself
	slash      bool   // PATH ended in "/": it must be (or become) a directory
}

func (r remotePath) String() string { return r.name + ":" + r.path }

// parseRemote reads NAME:PATH; ok is false when arg is not of that form
// (it is then a local path). A relative PATH is under /workspace, an empty
// one is /workspace itself.
func parseRemote(arg string) (r remotePath, ok bool) {
	name, p, found := strings.Cut(arg, ":")
	if !found || !api.ValidSandboxName(name) {
		return remotePath{}, false
	}
	r.name = name
	r.contents = p == "." || strings.HasSuffix(p, "/.")
	r.slash = strings.HasSuffix(p, "/")
	if !strings.HasPrefix(p, "/") {
		p = path.Join(remoteDir, p)
	}
	r.path = path.Clean(p)
	return r, true
}

// mustRemote is parseRemote for the verbs that only take NAME:PATH.
func mustRemote(verb, arg string) (remotePath, error) {
	if r, ok := parseRemote(arg); ok {
		return r, nil
	}
	if api.ValidSandboxName(arg) {
		return remotePath{}, usageError{fmt.Errorf("%q is a sandbox name, not NAME:PATH: try `berth %s %s:%s`", arg, verb, arg, remoteDir)}
	}
	return remotePath{}, usageError{fmt.Errorf("%q is not NAME:PATH (a sandbox name, a colon, a path in it: demo:/workspace/main.go)", arg)}
}

// statFollow describes p, following symlinks (up to 8) the way the
// sandbox's own reads do; a missing target is FILE_NOT_FOUND.
func statFollow(ctx context.Context, sb *client.Sandbox, p string) (*client.FileInfo, error) {
	for range 8 {
		fi, err := sb.Stat(ctx, p)
		if err != nil || fi.Type != "symlink" {
			return fi, err
		}
		t := fi.Target
		if !strings.HasPrefix(t, "/") {
			t = path.Join(path.Dir(p), t)
		}
		p = path.Clean(t)
	}
	return nil, &client.Error{Code: string(client.ErrInvalidPath), Message: p + ": too many levels of symbolic links"}
}

// fileView is a sandbox file as `berth ls --json` prints it (the API's shape).
type fileView struct {
	Name    string    `json:"name"`
	Path    string    `json:"path"`
	Type    string    `json:"type"`
	Size    int64     `json:"size"`
	Mode    string    `json:"mode"`
	ModTime time.Time `json:"mtime"`
	Target  string    `json:"target,omitempty"`
}

func fileViewOf(f *client.FileInfo) fileView {
	return fileView{Name: f.Name, Path: f.Path, Type: f.Type, Size: f.Size, Mode: octalMode(f.Mode), ModTime: f.ModTime, Target: f.Target}
}

// octalMode is "0644" (with setuid 4, setgid 2 and sticky 1 in front).
func octalMode(m fs.FileMode) string { return fmt.Sprintf("%04o", unixmode.FromFS(m)) }

// lsMode renders type and permissions as ls -l does: drwxr-xr-x.
func lsMode(f *client.FileInfo) string {
	m := f.Mode
	switch f.Type {
	case "directory":
		m |= fs.ModeDir
	case "symlink":
		m |= fs.ModeSymlink
	case "fifo":
		m |= fs.ModeNamedPipe
	case "socket":
		m |= fs.ModeSocket
	case "device":
		m |= fs.ModeDevice
	}
	return m.String()
}

// lsFileOptions are the flags `berth ls NAME:PATH` adds to `berth ls`.
type lsFileOptions struct{ all, recursive bool }

// addLsFileFlags registers ls's file flags on the sandbox-listing command.
func addLsFileFlags(cmd *cobra.Command) *lsFileOptions {
	o := &lsFileOptions{}
	cmd.Flags().BoolVarP(&o.all, "all", "a", false, "with NAME:PATH: include names starting with '.'")
	cmd.Flags().BoolVarP(&o.recursive, "recursive", "R", false, "with NAME:PATH: descend into subdirectories")
	return o
}

// run lists a directory in a sandbox (or describes a single file).
func (o *lsFileOptions) run(cmd *cobra.Command, g *globals, arg string) error {
	r, err := mustRemote("ls", arg)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("status") {
		return usageError{errors.New("--status filters sandboxes; it does not apply to `berth ls NAME:PATH`")}
	}
	c, err := g.client()
	if err != nil {
		return err
	}
	sb := c.Sandbox(r.name)
	list, err := sb.List(cmd.Context(), r.path, client.ListOptions{Recursive: o.recursive, IncludeHidden: o.all})
	if errors.Is(err, client.ErrNotDirectory) {
		// ls of a file shows that file (unless a parent is the file).
		if fi, serr := sb.Stat(cmd.Context(), r.path); serr == nil {
			list, err = []client.FileInfo{*fi}, nil
		}
	}
	if err != nil {
		return err
	}
	views := make([]fileView, len(list))
	for i := range list {
		views[i] = fileViewOf(&list[i])
	}
	return g.out(cmd, views, func(w io.Writer) {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for i := range list {
			f := &list[i]
			name := f.Name
			if o.recursive {
				name = strings.TrimPrefix(strings.TrimPrefix(f.Path, r.path), "/")
			}
			name = termsafe.String(name) // a file name must not drive the terminal
			if f.Type == "symlink" {
				name += " -> " + termsafe.String(f.Target)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", lsMode(f), humanSize(f), lsTime(f.ModTime), name)
		}
		tw.Flush()
	})
}

func humanSize(f *client.FileInfo) string {
	if f.Type == "directory" {
		return "-"
	}
	return humanBytes(f.Size)
}

// lsTime is ls's date column: time of day this year, else the year.
func lsTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	t = t.Local()
	if t.Year() == time.Now().Year() {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

func catCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "cat NAME:PATH...", Short: "Print files of a sandbox to stdout, byte for byte", GroupID: "sandbox",
		Example: `  berth cat demo:/workspace/out.json | jq .
  berth cat demo:notes.txt        # relative paths are under /workspace`,
		Args: cobra.MinimumNArgs(1), ValidArgsFunction: completeRemote(g, false, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths := make([]remotePath, len(args))
			for i, a := range args {
				r, err := mustRemote("cat", a)
				if err != nil {
					return err
				}
				paths[i] = r
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			for _, r := range paths {
				rc, _, err := c.Sandbox(r.name).ReadFile(cmd.Context(), r.path)
				if err != nil {
					return err
				}
				_, err = io.Copy(cmd.OutOrStdout(), rc)
				rc.Close()
				if err != nil {
					return fmt.Errorf("reading %s: %w", r, err)
				}
			}
			return nil
		},
	}
}

// completeRemote completes NAME: with sandbox names, then the paths in the
// sandbox; with local, an argument without a colon completes local files.
// max > 0 bounds the number of arguments.
func completeRemote(g *globals, local bool, max int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if max > 0 && len(args) >= max {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		name, p, found := strings.Cut(toComplete, ":")
		if !found {
			var out []cobra.Completion
			for _, n := range sandboxNames(cmd.Context(), g, toComplete) {
				out = append(out, strings.SplitN(n, "\t", 2)[0]+":")
			}
			if len(out) == 0 && local {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
		}
		c, err := g.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		dir, prefix := remoteDir, p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			dir, prefix = p[:i+1], p[i+1:]
		}
		if !strings.HasPrefix(dir, "/") {
			dir = path.Join(remoteDir, dir)
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
		defer cancel()
		list, err := c.Sandbox(name).List(ctx, dir, client.ListOptions{IncludeHidden: strings.HasPrefix(prefix, ".")})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		base := toComplete[:len(toComplete)-len(prefix)]
		var out []cobra.Completion
		for _, f := range list {
			// A name with control characters is not offered: the shell
			// would print it, and an escaped form would not name the file.
			if strings.HasPrefix(f.Name, prefix) && termsafe.Safe(f.Name) {
				s := base + f.Name
				if f.IsDir() {
					s += "/"
				}
				out = append(out, s)
			}
		}
		return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	}
}
