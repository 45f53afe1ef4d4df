package config

import (
	"fmt"
	"net"
	"strconv"
)

// BERTH_HOST_ADDR turns on a worker's host proxy: gateways on other
// machines reach this host's sandboxes through it (over TLS from the
// authority BERTH_SECRET derives, internal/hosttls), since a container's
// bridge address is neither routable nor unique between hosts. Unset, the
// gateway dials containers directly: one host, or gateways beside it.

// ValidateHostAddr checks BERTH_HOST_ADDR: it is announced to gateways, so
// it must name one reachable host, not a wildcard.
func (c Config) ValidateHostAddr() error {
	if c.HostAddr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(c.HostAddr)
	if err != nil {
		return fmt.Errorf("BERTH_HOST_ADDR=%q: want host:port (%v)", c.HostAddr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("BERTH_HOST_ADDR=%q: the port must be 1-65535", c.HostAddr)
	}
	if host == "" {
		return fmt.Errorf("BERTH_HOST_ADDR=%q: name the address gateways reach this host at (it is announced), not a wildcard", c.HostAddr)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("BERTH_HOST_ADDR=%q: name the address gateways reach this host at (it is announced), not a wildcard", c.HostAddr)
	}
	return nil
}
