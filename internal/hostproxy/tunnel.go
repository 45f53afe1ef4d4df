package hostproxy

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/hosttls"
)

// tunnelPort parses "/tcp/<port>"; ok is false for any other path.
func tunnelPort(rest string) (port int, ok bool) {
	s, found := strings.CutPrefix(rest, "/tcp/")
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// tunnel connects the request's connection to port of the container at
// t (a preview URL on another host): 101, then bytes both ways until
// either side closes. A port that refuses is said so (PortRefused), so
// the gateway retries it as it would a local refusal.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request, t hostTarget, port int) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), hosttls.TunnelProtocol) {
		Refuse(w, http.StatusBadRequest, api.CodeValidation, "a tunnel needs Upgrade: "+hosttls.TunnelProtocol)
		return
	}
	host, _, _ := net.SplitHostPort(t.addr)
	up, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), 5*time.Second)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			w.Header().Set(hosttls.ProxyHeader, hosttls.PortRefused)
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		Refuse(w, http.StatusBadGateway, api.CodeContainerUnavailable, "port "+strconv.Itoa(port)+" did not answer")
		return
	}
	defer up.Close()
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		Refuse(w, http.StatusInternalServerError, api.CodeInternal, "cannot take over the connection")
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Time{}) // the server's read deadlines end here
	if _, err := brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + hosttls.TunnelProtocol + "\r\n\r\n"); err != nil {
		return
	}
	if err := brw.Flush(); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, brw.Reader) // what the client sent along with the upgrade, then the rest
		if tc, ok := up.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		close(done)
	}()
	_, _ = io.Copy(conn, up)
	_ = conn.Close() // the client's side ends: the copy above stops too
	<-done
}
