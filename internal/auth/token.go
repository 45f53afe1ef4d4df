// Package auth derives per-boot supervisor tokens from the server secret, so
// no token is ever stored in workflow history: anyone holding the secret
// (workers, gateways) can compute it from the boot id recorded there.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// SupervisorToken is the bearer token of the supervisor of one boot.
func SupervisorToken(secret, bootID string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("berth-supervisor/v1\x00"))
	m.Write([]byte(bootID))
	return hex.EncodeToString(m.Sum(nil))
}
