package httpapi

import (
	"strconv"

	"github.com/berthdev/berth/api"
)

// EchoMax is how much of a request's value an error repeats. Values such
// as argv0 may be as long as the request allows (a single argument up to
// 128 KiB): an error quoting one whole in its message and its context was
// twice its size, and so was the CLI's line.
const EchoMax = 256

// Quote names a request's value in an error message: quoted, and if
// longer than EchoMax, its first EchoMax bytes followed by its length.
func Quote(s string) string {
	c, whole := api.Clip(s, EchoMax)
	if whole {
		return strconv.Quote(c)
	}
	return strconv.Quote(c) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Echo is a request's value for an error's context, clipped like Quote's.
func Echo(s string) string {
	c, _ := api.Clip(s, EchoMax)
	return c
}
