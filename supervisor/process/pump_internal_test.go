package process

import (
	"os"
	"sync"
	"testing"
	"time"
)

// On a loaded machine the pump may not run at all within DrainGrace of the
// leader's exit, and the cut-off (a read deadline in the past) makes every
// later read fail before it reads: what the leader wrote last sat in the
// pipe and was lost (an `echo` answered exit 0 with empty stdout). The pump
// must still take what is in the pipe when it is cut off.
func TestPumpCutOffBeforeItReadsKeepsWhatIsInThePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.Write([]byte("the leader's last line\n")); err != nil {
		t.Fatal(err)
	}
	// A grandchild still holds the write end: no EOF comes.
	defer w.Close()
	// The cut came before the pump ever ran.
	if err := r.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	p := &process{
		log:  newLogBuffer(1<<20, nil),
		logs: &logBudget{limit: 1 << 30},
		bufs: &sync.Pool{New: func() any { b := make([]byte, readBuf); return &b }},
	}
	var wg sync.WaitGroup
	wg.Add(1)
	done := make(chan struct{})
	go func() { p.pump(r, streamStdout, &wg); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the pump kept reading after it was cut off")
	}
	var got []byte
	for _, c := range p.log.read(0, 0).chunks {
		got = append(got, c.data...)
	}
	if string(got) != "the leader's last line\n" {
		t.Fatalf("stdout after the cut-off: %q, want the leader's last line", got)
	}
}
