// Package unixmode converts between Unix mode bits (as in tar headers, the
// files API's "0755"-style modes and chmod(2)) and Go's fs.FileMode, which
// keeps setuid, setgid and sticky in bits of its own.
package unixmode

import "io/fs"

// ToFS converts the permission, setuid (04000), setgid (02000) and sticky
// (01000) bits of u; file-type bits are ignored.
func ToFS(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// FromFS returns m's permission bits with setuid, setgid and sticky in
// their Unix positions.
func FromFS(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}
