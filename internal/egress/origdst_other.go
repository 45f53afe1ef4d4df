//go:build !linux

package egress

import (
	"errors"
	"net"
	"net/netip"
)

// OriginalDst needs Linux netfilter; elsewhere inject Proxy.OrigDst.
func OriginalDst(net.Conn) (netip.AddrPort, error) {
	return netip.AddrPort{}, errors.New("original destination: only supported on Linux")
}
