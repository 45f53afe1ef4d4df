package api

import "unicode/utf8"

// Clip cuts s to at most max bytes at a character boundary, so that a
// value echoed into an error or an event stays bounded and valid UTF-8;
// whole says whether nothing was cut.
func Clip(s string, max int) (clipped string, whole bool) {
	if len(s) <= max {
		return s, true
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], false
}
