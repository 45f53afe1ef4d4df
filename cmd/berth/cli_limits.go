package main

import "github.com/berthdev/berth/client"

func init() {
	for code, hint := range limitHints {
		errorHints[code] = hint
	}
}

// limitHints say what to do about the per-sandbox limits' error codes.
var limitHints = map[client.ErrorCode]string{
	client.ErrEnvTooLarge: "a sandbox env holds at most 128 variables and 64 KiB: unset some first with `berth env NAME unset KEY…`",
}
