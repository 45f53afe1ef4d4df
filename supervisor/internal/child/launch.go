package child

import (
	"strconv"
	"strings"
	"syscall"

	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// Launcher turns a request's argv, cwd and env into a command ready to
// fork, the same way for processes and terminals.
type Launcher struct {
	DefaultCwd string
	// BaseEnv is the image environment, the lowest layer of every env.
	BaseEnv []string
	// SandboxEnv is the sandbox env layer (PUT /v1/env) at this moment.
	SandboxEnv func() EnvLayer
	// User is whom commands run as unless a request names another: the
	// image's USER (the supervisor itself runs as root).
	User Identity
}

// Command is a validated command: its executable resolved to an absolute
// path, its cwd checked and its env built.
type Command struct {
	Path string
	Argv []string
	Cwd  string
	Env  []string
	// Cred is the user the command runs as; nil: root, as the supervisor.
	Cred *syscall.Credential
}

// Prepare validates argv (non-empty; the caller phrases that check), the
// request's env layer and cwd (default DefaultCwd), builds the env (image,
// defaults, sandbox, request) and resolves argv[0], so that mistakes
// answer a clear 4xx: before anything forks, or, when argv[0] has only one
// candidate (a path, or a PATH of one directory), once the fork failed
// (Command.ForkError). Then execve is the check and a command that runs
// costs no stat of its own: in a container those go through the image's
// overlay file system, a FUSE daemon on some hosts.
func (l Launcher) Prepare(argv []string, cwd string, reqEnv, defaults EnvLayer) (Command, *httpapi.Error) {
	return l.PrepareAs("", argv, cwd, reqEnv, defaults)
}

// PrepareAs is Prepare for a request that names its user ("" is the
// launcher's User). A user that is not root gets its own HOME unless the
// image, the sandbox or the request set one: Docker sets HOME=/root for
// the container's root user, which that user cannot write.
func (l Launcher) PrepareAs(userSpec string, argv []string, cwd string, reqEnv, defaults EnvLayer) (Command, *httpapi.Error) {
	id := l.User
	if userSpec != "" {
		var err error
		if id, err = ResolveUser(userSpec); err != nil {
			return Command{}, httpapi.BadRequest(err.Error())
		}
	}
	for i, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return Command{}, httpapi.BadRequest("argv[" + strconv.Itoa(i) + "] contains a NUL byte")
		}
	}
	if err := ValidateEnv(reqEnv); err != nil {
		return Command{}, err
	}
	if cwd == "" {
		cwd = l.DefaultCwd
	}
	if err := checkCwdSyntax(cwd); err != nil {
		return Command{}, err
	}
	var sandbox EnvLayer
	if l.SandboxEnv != nil {
		sandbox = l.SandboxEnv()
	}
	base := l.BaseEnv
	if !id.IsRoot() && homeIsRoots(base) {
		base = append(append([]string(nil), base...), "HOME="+id.Home)
	}
	env := BuildEnv(base, defaults, sandbox, reqEnv)
	if path, ok := onlyCandidate(argv[0], cwd, env); ok {
		return Command{Path: path, Argv: argv, Cwd: cwd, Env: env, Cred: id.Cred}, nil
	}
	if err := CheckCwd(cwd); err != nil {
		return Command{}, err
	}
	path, err := ResolveExecutable(argv[0], cwd, env)
	if err != nil {
		return Command{}, err
	}
	return Command{Path: path, Argv: argv, Cwd: cwd, Env: env, Cred: id.Cred}, nil
}

// homeIsRoots reports whether env's HOME is /root: what Docker gives the
// container's root user when the image sets no HOME.
func homeIsRoots(env []string) bool {
	v, ok := lookupEnv(env, "HOME")
	return ok && v == "/root"
}

// ForkError explains why c could not be forked: the answer Prepare's
// checks give now if they fail (whether or not they ran before the fork,
// the caller gets the same 4xx), else the fork's own error.
func (c Command) ForkError(err error) *httpapi.Error {
	if e := CheckCwd(c.Cwd); e != nil {
		return e
	}
	if _, e := ResolveExecutable(c.Argv[0], c.Cwd, c.Env); e != nil {
		return e
	}
	return ForkError(c.Argv[0], err)
}
