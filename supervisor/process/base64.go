package process

import (
	"encoding/base64"
	"encoding/binary"
)

// Log data is base64 in every event, and encoding it dominated the CPU
// profile of a fast log stream. This encoder produces exactly
// base64.StdEncoding's output but maps 12 bits per table lookup (two
// output characters), about twice as fast as the stdlib's 6-bit loop.

const stdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// pairTable maps a 12-bit value to its two base64 characters (little-endian
// uint16, first character in the low byte). Built once, read-only after.
var pairTable = func() (t [4096]uint16) {
	for i := range t {
		t[i] = uint16(stdAlphabet[i>>6]) | uint16(stdAlphabet[i&63])<<8
	}
	return t
}()

// appendBase64 appends the standard (padded) base64 encoding of src.
func appendBase64(dst, src []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(src))
	start := len(dst)
	dst = append(dst, make([]byte, n)...)[:start+n]
	out := dst[start:]
	i, o := 0, 0
	// 6 input bytes -> 8 output bytes per step; the 8-byte load needs
	// 2 bytes of slack past the 6 consumed.
	for ; i+8 <= len(src); i, o = i+6, o+8 {
		v := binary.BigEndian.Uint64(src[i:])
		w := uint64(pairTable[(v>>52)&0xfff]) |
			uint64(pairTable[(v>>40)&0xfff])<<16 |
			uint64(pairTable[(v>>28)&0xfff])<<32 |
			uint64(pairTable[(v>>16)&0xfff])<<48
		binary.LittleEndian.PutUint64(out[o:], w)
	}
	base64.StdEncoding.Encode(out[o:], src[i:])
	return dst
}
