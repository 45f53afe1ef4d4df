// Command forkloop times fork+exec+wait of a command from inside a
// sandbox, the way the exec benchmark times it on the host: the floor of
// any exec that forks there (the sandbox's CPU quota and file system
// included). It prints, as JSON, the median and 95th percentile in
// nanoseconds, the median number of page faults one run of the command
// took (its minor faults), and what one page fault costs there: a measure
// of the machine under the sandbox, which no supervisor can change, to
// compare one machine's floor with another's.
//
//	forkloop [-n samples] [-block 10] [-pause 200ms] true
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 50, "samples")
	block := flag.Int("block", 10, "samples per block")
	pause := flag.Duration("pause", 200*time.Millisecond, "pause after each block (lets a CPU quota refill)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: forkloop [-n samples] [-block k] [-pause d] command")
		os.Exit(2)
	}
	path, err := exec.LookPath(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	run := func() (time.Duration, int64) {
		start := time.Now()
		cmd := exec.Command(path)
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		took := time.Since(start)
		return took, cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt
	}
	for range 5 { // warm the caches, as the benchmark warms its paths
		run()
	}
	ds := make([]time.Duration, 0, *n)
	faults := make([]int64, 0, *n)
	for len(ds) < *n {
		for i := 0; i < *block && len(ds) < *n; i++ {
			d, f := run()
			ds, faults = append(ds, d), append(faults, f)
		}
		time.Sleep(*pause)
	}
	slices.Sort(ds)
	slices.Sort(faults)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]int64{
		"p50Ns": int64(ds[len(ds)/2]), "p95Ns": int64(ds[len(ds)*95/100]),
		"faults": faults[len(faults)/2], "faultNs": int64(pageFault()),
	})
}

// pageFault is the median cost of one page fault: the first write to each
// page of a fresh anonymous mapping, in blocks of 256 pages (1 MiB), the
// same kind of fault a new process takes on its stack, heap and data.
func pageFault() time.Duration {
	const pages, rounds = 256, 21
	page := os.Getpagesize()
	size := pages * page
	per := make([]time.Duration, 0, rounds)
	for range rounds {
		m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mmap:", err)
			os.Exit(1)
		}
		start := time.Now()
		for i := 0; i < size; i += page {
			m[i] = 1
		}
		per = append(per, time.Since(start)/pages)
		_ = syscall.Munmap(m)
	}
	slices.Sort(per)
	return per[len(per)/2]
}
