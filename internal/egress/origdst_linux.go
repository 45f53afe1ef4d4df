package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

// OriginalDst returns where a connection redirected to the proxy by the
// host's netfilter (REDIRECT/DNAT) was headed: SO_ORIGINAL_DST for IPv4,
// IP6T_SO_ORIGINAL_DST (same number, IPv6 level) for IPv6.
func OriginalDst(c net.Conn) (netip.AddrPort, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return netip.AddrPort{}, errors.New("original destination: not a TCP connection")
	}
	local, _ := netip.ParseAddrPort(tc.LocalAddr().String())
	raw, err := tc.SyscallConn()
	if err != nil {
		return netip.AddrPort{}, err
	}
	var out netip.AddrPort
	var serr error
	cerr := raw.Control(func(fd uintptr) {
		if local.Addr().Unmap().Is4() {
			// sockaddr_in fits the 16 bytes of an IPv6Mreq.
			m, err := unix.GetsockoptIPv6Mreq(int(fd), unix.SOL_IP, unix.SO_ORIGINAL_DST)
			if err != nil {
				serr = err
				return
			}
			b := m.Multiaddr
			out = netip.AddrPortFrom(netip.AddrFrom4([4]byte{b[4], b[5], b[6], b[7]}), binary.BigEndian.Uint16(b[2:4]))
			return
		}
		// sockaddr_in6 is the first field of an IPv6MTUInfo.
		i, err := unix.GetsockoptIPv6MTUInfo(int(fd), unix.SOL_IPV6, unix.SO_ORIGINAL_DST)
		if err != nil {
			serr = err
			return
		}
		var pb [2]byte
		binary.NativeEndian.PutUint16(pb[:], i.Addr.Port) // stored in network order
		out = netip.AddrPortFrom(netip.AddrFrom16(i.Addr.Addr), binary.BigEndian.Uint16(pb[:]))
	})
	if cerr != nil {
		return netip.AddrPort{}, cerr
	}
	if serr != nil {
		return netip.AddrPort{}, fmt.Errorf("original destination: %w", serr)
	}
	return out, nil
}
