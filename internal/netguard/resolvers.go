package netguard

import (
	"bufio"
	"net/netip"
	"os"
	"slices"
	"strings"
)

// ResolvConfs are where dockerd takes the nameservers it writes into a
// sandbox's resolv.conf from: the host's file, or systemd-resolved's real
// list when the host's file only names the local stub.
var ResolvConfs = []string{"/etc/resolv.conf", "/run/systemd/resolve/resolv.conf"}

// HostResolvers lists the private nameservers a sandbox's resolv.conf
// names (a sandbox is a container of network "none" that the worker
// attaches: Docker gives it the host's nameservers). Its lookups cross the
// guard like any sandbox packet; a public nameserver needs no exception
// and a loopback one is never reached from a sandbox.
func HostResolvers() []netip.Addr {
	var out []netip.Addr
	for _, a := range Nameservers(ResolvConfs) {
		if a.Zone() != "" || a.IsLoopback() || !Denied(a) || slices.Contains(out, a) {
			continue
		}
		out = append(out, a)
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return out
}

// Nameservers lists the nameservers of the resolv.conf files at paths, in
// order (IPv4-mapped ones unmapped); a file that cannot be read is skipped.
func Nameservers(paths []string) []netip.Addr {
	var out []netip.Addr
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 || fields[0] != "nameserver" {
				continue
			}
			if a, err := netip.ParseAddr(fields[1]); err == nil {
				out = append(out, a.Unmap())
			}
		}
		f.Close()
	}
	return out
}
