package child

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// defaultPath is used to find argv[0] when the process env has no PATH;
// it is the PATH Docker gives containers.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// CheckCwd answers with a 422 INVALID_CWD (before forking, or once a fork
// failed), instead of a process that dies in chdir with an opaque status.
func CheckCwd(cwd string) *httpapi.Error {
	if err := checkCwdSyntax(cwd); err != nil {
		return err
	}
	fi, err := os.Stat(cwd)
	switch {
	case err != nil:
		return httpapi.NewError(http.StatusUnprocessableEntity, api.CodeInvalidCwd, "cwd "+httpapi.Quote(cwd)+": "+describe(err)).With("cwd", httpapi.Echo(cwd))
	case !fi.IsDir():
		return httpapi.NewError(http.StatusUnprocessableEntity, api.CodeInvalidCwd, "cwd "+httpapi.Quote(cwd)+" is not a directory").With("cwd", httpapi.Echo(cwd))
	}
	return nil
}

func checkCwdSyntax(cwd string) *httpapi.Error {
	if !filepath.IsAbs(cwd) {
		return httpapi.BadRequest("cwd must be an absolute path, got "+httpapi.Quote(cwd)).With("cwd", httpapi.Echo(cwd))
	}
	return nil
}

// candidates lists the paths execvp would try for argv0, in order: argv0
// itself if it holds a slash (relative to cwd), else argv0 in each
// directory of the child's PATH (relative entries relative to cwd); search
// tells which. Absolute, so that the fork does not depend on the
// supervisor's own cwd.
func candidates(argv0, cwd string, env []string) (paths []string, search bool, path string) {
	if strings.Contains(argv0, "/") {
		if !filepath.IsAbs(argv0) {
			argv0 = filepath.Join(cwd, argv0)
		}
		return []string{argv0}, false, ""
	}
	path, ok := lookupEnv(env, "PATH")
	if !ok {
		path = defaultPath
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		paths = append(paths, filepath.Join(dir, argv0))
	}
	return paths, true, path
}

// onlyCandidate is the one path ResolveExecutable would check for argv0, if
// there is only one.
func onlyCandidate(argv0, cwd string, env []string) (string, bool) {
	if paths, _, _ := candidates(argv0, cwd, env); len(paths) == 1 {
		return paths[0], true
	}
	return "", false
}

// ResolveExecutable finds argv0 the way execvp would in the child (see
// candidates) and returns the first candidate that is an executable file.
func ResolveExecutable(argv0, cwd string, env []string) (string, *httpapi.Error) {
	notFound := func(detail string) *httpapi.Error {
		return httpapi.NewError(http.StatusUnprocessableEntity, api.CodeExecutableNotFound,
			"executable "+httpapi.Quote(argv0)+" "+detail).With("argv0", httpapi.Echo(argv0))
	}
	paths, search, path := candidates(argv0, cwd, env)
	if !search {
		if err := checkExecutable(paths[0]); err != nil {
			return "", notFound(describe(err))
		}
		return paths[0], nil
	}
	var denied error
	for _, p := range paths {
		err := checkExecutable(p)
		if err == nil {
			return p, nil
		}
		if errors.Is(err, fs.ErrPermission) && denied == nil {
			denied = err
		}
	}
	if denied != nil {
		return "", notFound("found in PATH but " + describe(denied))
	}
	return "", notFound("not found in PATH "+strconv.Quote(path)).With("path", path)
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if fi.Mode()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

// describe turns common errors into short phrases for error messages.
func describe(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "is not executable or not accessible (permission denied)"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ForkError maps an execve/chdir failure reported by ForkExec. The checks
// above catch the usual cases; this covers races and ENOEXEC and friends.
func ForkError(argv0 string, err error) *httpapi.Error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT, syscall.EACCES, syscall.EISDIR, syscall.ENOTDIR:
			return httpapi.NewError(http.StatusUnprocessableEntity, api.CodeExecutableNotFound,
				"cannot execute "+httpapi.Quote(argv0)+": "+errno.Error()).With("argv0", httpapi.Echo(argv0))
		case syscall.EAGAIN:
			return atPidsLimit(argv0)
		case syscall.ENOEXEC, syscall.ELIBBAD, syscall.ETXTBSY, syscall.E2BIG:
			return httpapi.NewError(http.StatusUnprocessableEntity, api.CodeExecFailed,
				"cannot execute "+httpapi.Quote(argv0)+": "+errno.Error()).With("argv0", httpapi.Echo(argv0))
		}
	}
	return httpapi.NewError(http.StatusInternalServerError, api.CodeInternal, "spawn "+httpapi.Quote(argv0)+": "+err.Error())
}
