package process

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"syscall"
)

// signalSpec is a signal given as a number (1–64) or a name ("TERM",
// "SIGKILL", case-insensitive).
type signalSpec syscall.Signal

func (s *signalSpec) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if b[0] == '"' {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		sig, ok := signalByName(name)
		if !ok {
			if n, err := strconv.Atoi(name); err == nil {
				return s.set(n)
			}
			return errors.New("unknown signal " + strconv.Quote(name))
		}
		*s = signalSpec(sig)
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return errors.New("signal must be an integer 1-64 or a name like \"SIGTERM\"")
	}
	return s.set(n)
}

func (s *signalSpec) set(n int) error {
	if n < 1 || n > 64 {
		return errors.New("signal " + strconv.Itoa(n) + " out of range 1-64")
	}
	*s = signalSpec(n)
	return nil
}

func signalByName(name string) (syscall.Signal, bool) {
	switch strings.TrimPrefix(strings.ToUpper(name), "SIG") {
	case "HUP":
		return syscall.SIGHUP, true
	case "INT":
		return syscall.SIGINT, true
	case "QUIT":
		return syscall.SIGQUIT, true
	case "ABRT":
		return syscall.SIGABRT, true
	case "KILL":
		return syscall.SIGKILL, true
	case "USR1":
		return syscall.SIGUSR1, true
	case "USR2":
		return syscall.SIGUSR2, true
	case "PIPE":
		return syscall.SIGPIPE, true
	case "ALRM":
		return syscall.SIGALRM, true
	case "TERM":
		return syscall.SIGTERM, true
	case "CONT":
		return syscall.SIGCONT, true
	case "STOP":
		return syscall.SIGSTOP, true
	case "TSTP":
		return syscall.SIGTSTP, true
	case "WINCH":
		return syscall.SIGWINCH, true
	}
	return 0, false
}
