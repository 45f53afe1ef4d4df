// Command forkloop times fork+exec+wait of a command from inside a
// sandbox, the way the exec benchmark times it on the host: the floor of
// any exec that forks there (the sandbox's CPU quota and file system
// included). It prints the median and 95th percentile in nanoseconds as
// JSON.
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
	for range 5 { // warm the caches, as the benchmark warms its paths
		_ = exec.Command(path).Run()
	}
	ds := make([]time.Duration, 0, *n)
	for len(ds) < *n {
		for i := 0; i < *block && len(ds) < *n; i++ {
			start := time.Now()
			if err := exec.Command(path).Run(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			ds = append(ds, time.Since(start))
		}
		time.Sleep(*pause)
	}
	slices.Sort(ds)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]int64{
		"p50Ns": int64(ds[len(ds)/2]), "p95Ns": int64(ds[len(ds)*95/100]),
	})
}
