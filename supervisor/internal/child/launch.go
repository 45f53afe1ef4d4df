package child

import (
	"strconv"
	"strings"

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
}

// Command is a validated command: its executable resolved to an absolute
// path, its cwd checked and its env built.
type Command struct {
	Path string
	Argv []string
	Cwd  string
	Env  []string
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
	env := BuildEnv(l.BaseEnv, defaults, sandbox, reqEnv)
	if path, ok := onlyCandidate(argv[0], cwd, env); ok {
		return Command{Path: path, Argv: argv, Cwd: cwd, Env: env}, nil
	}
	if err := CheckCwd(cwd); err != nil {
		return Command{}, err
	}
	path, err := ResolveExecutable(argv[0], cwd, env)
	if err != nil {
		return Command{}, err
	}
	return Command{Path: path, Argv: argv, Cwd: cwd, Env: env}, nil
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
