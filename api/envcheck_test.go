package api

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckEnvValue(t *testing.T) {
	allowed := []string{
		"", "production", "1", "8080", "true", "debug", "sk-learn", "skate",
		"/workspace", "/usr/local/lib/python3.11/site-packages/berth_tools",
		"/home/Alice/Projects2024/app-server/src/main/resources/config7",
		"https://api.example.com/v1/chat", "postgres://db.internal:5432/app?sslmode=disable",
		"postgres://app:getSecret(db/password)@db.internal:5432/app",
		`getSecret("openai/api-key")`, "getSecret(openai/api-key)", "getSecret('stripe')",
		"Bearer getSecret(github/token)",
		"123e4567-e89b-12d3-a456-426614174000",                                    // UUID: allowed, see secrets.go
		"9fceb02d0ae598e95dc970b74767f19372d61af8",                                // git SHA
		"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // digest
		"postgres-primary-replica-01-us-east-1-production-cluster",
		"MyVeryLongApplicationNameForProductionUse", "service-account-2024-eu-central-1-analytics-prod-replica-09",
		"ABCDEFGHIJ_KLMNOP_QRSTU_VWXYZ_0123456789",
		"The quick brown fox jumps over the lazy dog 12345 times in 2024",
		"en_US.UTF-8", "Europe/Berlin", "-Xmx2g -XX:+UseG1GC -Dfile.encoding=UTF-8",
		"akia-lowercase-is-fine", "AKIAS", "eyJ", "node_modules/.bin:/usr/local/bin:/usr/bin:/bin",
	}
	for _, v := range allowed {
		assert.NoError(t, CheckEnvValue("K", v), "should allow %q (entropy %.2f)", v, shannonEntropy(v))
	}

	rejected := map[string]string{
		"openai":                "sk-proj-abcdEFGH1234ijklMNOP5678qrst",
		"anthropic":             "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
		"stripe":                "sk_live_51HxYzAbCdEfGh12345",
		"stripe test":           "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
		"github":                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"github oauth":          "gho_16C7e42F292c6912E7710c838347Ae178B4a",
		"github pat":            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
		"slack bot":             "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp",
		"slack user":            "xoxp-123456789012-1234567890123-AbCdEfGhIjKlMnOp",
		"aws key id":            "AKIAIOSFODNN7EXAMPLE",
		"aws sts id":            "ASIAIOSFODNN7EXAMPLE",
		"aws secret":            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"pem":                   "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
		"pem openssh":           "-----BEGIN OPENSSH PRIVATE KEY-----",
		"jwt":                   "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"bearer":                "Bearer sk-proj-abcdEFGH1234ijklMNOP5678qrst",
		"base64 random":         "q8Zr3VnK2pX7mWcT9bLfH4sJ6dYgA1eN0uRoQiEkBtM=",
		"base64url":             "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpL",
		"alnum random":          "a9f3k2m8x7q1w5e4r6t0y2u8i3o9p1l7z",
		"url password":          "postgres://app:hunter2@db.internal:5432/app",
		"hidden in placeholder": "getSecret(sk-proj-abcdEFGH1234ijklMNOP5678qrst)",
	}
	for name, v := range rejected {
		err := CheckEnvValue("API_KEY", v)
		if assert.Error(t, err, name) {
			assert.True(t, errors.Is(err, ErrSecretValue), name)
			assert.Contains(t, err.Error(), "API_KEY", name)
			assert.NotContains(t, err.Error(), v, "%s: error must never echo the value", name)
			for _, part := range strings.Fields(v) {
				if len(part) > 6 {
					assert.NotContains(t, err.Error(), part, name)
				}
			}
		}
	}
}

func TestCheckEnvValueLimits(t *testing.T) {
	assert.Error(t, CheckEnvValue("K", "a\x00b"))
	assert.Error(t, CheckEnvValue("K", strings.Repeat("a", 33<<10)))
}

func TestCheckEnvKey(t *testing.T) {
	for _, k := range []string{"A", "_", "PATH", "my_var", "X1", "_9", strings.Repeat("K", 256)} {
		assert.NoError(t, CheckEnvKey(k), k)
	}
	for _, k := range []string{"", "1A", "A=B", "A B", "A-B", "A.B", "A\x00", "ä", strings.Repeat("K", 257)} {
		assert.True(t, errors.Is(CheckEnvKey(k), ErrEnvKey), "%q", k)
	}
}

func TestCheckEnv(t *testing.T) {
	v := "production"
	secret := "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	assert.NoError(t, CheckEnv(map[string]*string{"MODE": &v, "GONE": nil}))
	assert.Error(t, CheckEnv(map[string]*string{"BAD=KEY": &v}))
	err := CheckEnv(map[string]*string{"TOKEN": &secret})
	assert.ErrorIs(t, err, ErrSecretValue)
	assert.NotContains(t, err.Error(), secret)
}

// One placeholder syntax everywhere: the names the worker finds in an env
// value (and intercepts for) are the ones the proxy substitutes.
func TestPlaceholderNames(t *testing.T) {
	got := PlaceholderNames(`Bearer getSecret("gh") x=getSecret('team/db') y=getSecret( plain ) again getSecret("gh") getSecret("")`)
	if want := []string{"gh", "team/db", "plain"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if n := PlaceholderNames(`getSecret(a b) getsecret("x") getSecret("unclosed`); len(n) != 0 {
		t.Fatalf("not placeholders, yet found %q", n)
	}
}
