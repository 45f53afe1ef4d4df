package main

import "github.com/berthdev/berth/client"

// limitHints say what to do about the per-sandbox limits' error codes.
var limitHints = map[client.ErrorCode]string{
	client.ErrEnvTooLarge:      "a sandbox env holds at most 128 variables and 64 KiB: unset some first with `berth env NAME unset KEY…`",
	client.ErrTooManyProcesses: "the sandbox runs as many processes as it may: wait for one to end, or `berth kill NAME ID` one (`berth ps NAME` lists them)",
	client.ErrTooManyTerminals: "the sandbox has as many terminals open as it may: exit one first",
	client.ErrTooManyFollowers: "too many log follows are open on this sandbox: end one (Ctrl-C a `berth logs -f`) first",
}
