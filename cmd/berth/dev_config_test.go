package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// `berth dev` replaces the user's client.json only when it is its own:
// absent, marked as written by it, or (from before the mark) naming a
// plain-HTTP loopback gateway. A file the user pointed at another gateway
// keeps its bytes, and the CLI still reaches that gateway from elsewhere.
func TestDevLeavesForeignUserClientConfigAlone(t *testing.T) {
	const devURL, devToken = "http://127.0.0.1:7601", "dev-token"
	cases := []struct {
		name     string
		existing string // "" for no file
		replaced bool
	}{
		{"absent", "", true},
		{"written by berth dev", `{"url":"http://127.0.0.1:9999","token":"old","writtenBy":"berth dev"}`, true},
		{"an earlier berth dev's, before the mark", `{"url":"http://127.0.0.1:9999","token":"old"}`, true},
		{"an earlier berth dev's on localhost", `{"url":"http://localhost:7600","token":"old"}`, true},
		{"an earlier berth dev's on ::1", `{"url":"http://[::1]:7600","token":"old"}`, true},
		{"the user's production gateway", `{"url":"https://berth.example.com","token":"prod"}`, false},
		{"the user's gateway by host name and HTTP", `{"url":"http://berth.internal:7600","token":"prod"}`, false},
		{"TLS on loopback (a tunnel)", `{"url":"https://127.0.0.1:8443","token":"prod"}`, false},
		{"not JSON", `url = "https://berth.example.com"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			path := filepath.Join(xdg, "berth", "client.json")
			if c.existing != "" {
				writeRaw(t, path, []byte(c.existing))
			}
			got, err := writeUserClientConfig(devURL, devToken)
			if got != path {
				t.Fatalf("path %q, want %q", got, path)
			}
			b, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if !c.replaced {
				var foreign foreignConfigError
				if !errors.As(err, &foreign) {
					t.Fatalf("err %v, want a foreignConfigError", err)
				}
				if string(b) != c.existing {
					t.Fatalf("the user's file was changed to %s", b)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var cfg struct{ URL, Token, WrittenBy string }
			if err := json.Unmarshal(b, &cfg); err != nil {
				t.Fatal(err)
			}
			if cfg.URL != devURL || cfg.Token != devToken || cfg.WrittenBy != devWriter {
				t.Fatalf("wrote %+v", cfg)
			}
		})
	}
}

// The mark does not get in the CLI's way: a marked file still connects.
func TestConnectionReadsMarkedConfig(t *testing.T) {
	cleanConnectionEnv(t)
	if _, err := writeUserClientConfig("http://127.0.0.1:7601", "tok"); err != nil {
		t.Fatal(err)
	}
	url, token, err := (&globals{}).connection()
	if err != nil || url != "http://127.0.0.1:7601" || token != "tok" {
		t.Fatalf("connection() = %q, %q, %v", url, token, err)
	}
}
