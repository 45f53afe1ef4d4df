package preview

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"strconv"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// Token derives a private port's token from the gateway's secret and the
// exposure's nonce: history keeps only the nonce, and a new exposure (new
// nonce) revokes the old token.
func (p *Previews) Token(name string, port contract.Port) string {
	m := hmac.New(sha256.New, []byte(p.secret))
	m.Write([]byte("berth-preview\x00" + name + "\x00" + strconv.Itoa(port.Port) + "\x00" + port.Nonce))
	return hex.EncodeToString(m.Sum(nil))[:40]
}

// Exposed is the API form of a port: its URLs as the caller reaches this
// gateway (scheme and host of its request), and a private port's token.
func (p *Previews) Exposed(scheme, host, name string, port contract.Port) api.ExposedPort {
	suffix := ""
	if _, hp, err := net.SplitHostPort(host); err == nil {
		suffix = ":" + hp
	}
	out := api.ExposedPort{Port: port.Port, Public: port.Public,
		URL:     scheme + "://" + strconv.Itoa(port.Port) + "-" + name + "." + p.domain + suffix + "/",
		PathURL: scheme + "://" + host + PathPrefix + name + "/" + strconv.Itoa(port.Port) + "/"}
	if !port.Public {
		out.Token = p.Token(name, port)
	}
	return out
}
