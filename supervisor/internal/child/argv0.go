package child

import (
	"strconv"
	"unicode/utf8"
)

// argv0Max is how much of argv0 an error repeats. argv0 is the caller's own
// and may be as long as the request allows (a single argument may be up
// to 128 KiB): an error quoting it whole in its message and its context
// was twice its size, and so was the CLI's line.
const argv0Max = 256

// clipArgv0 is argv0 cut to argv0Max bytes at a character boundary, and
// whether it was whole.
func clipArgv0(argv0 string) (string, bool) {
	if len(argv0) <= argv0Max {
		return argv0, true
	}
	cut := argv0Max
	for cut > 0 && !utf8.RuneStart(argv0[cut]) {
		cut--
	}
	return argv0[:cut], false
}

// quoteArgv0 names argv0 in an error message: quoted, and if clipped,
// followed by its length.
func quoteArgv0(argv0 string) string {
	c, whole := clipArgv0(argv0)
	if whole {
		return strconv.Quote(c)
	}
	return strconv.Quote(c) + "… (" + strconv.Itoa(len(argv0)) + " bytes)"
}

// argv0Context is argv0 for an error's context: clipped like the message.
func argv0Context(argv0 string) string {
	c, _ := clipArgv0(argv0)
	return c
}
