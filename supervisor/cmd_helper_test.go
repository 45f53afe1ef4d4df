package supervisor_test

import (
	"os"
	"os/exec"
	"strings"
	"time"
)

// execCmd runs the supervisor binary with a minimal environment and returns
// its combined output, for start-up failure tests.
type execCmd struct {
	bin string
	env []string
}

func (c *execCmd) run() (string, error) {
	cmd := exec.Command(c.bin)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, c.env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		return out.String(), nil
	}
}
