package secrets

import (
	"net/http"
	"testing"
)

// TestFirstPlaceholderNamesTheSecretHeldBack: a refusal of a whole request
// (wrong Host, an address the resolver never gave) names a secret it
// carried, from a header or the URL, for the operator.
func TestFirstPlaceholderNamesTheSecretHeldBack(t *testing.T) {
	for want, build := range map[string]func(*http.Request){
		"api-token": func(r *http.Request) { r.Header.Set("Authorization", `Bearer getSecret("api-token")`) },
		"in/url":    func(r *http.Request) { r.URL.RawQuery = "key=getSecret(%22in%2Furl%22)" },
		"":          func(r *http.Request) { r.Header.Set("X-Other", "nothing") },
	} {
		r, _ := http.NewRequest("GET", "https://api.example.test/x", nil)
		build(r)
		if got := FirstPlaceholder(r); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
