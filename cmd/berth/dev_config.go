package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
)

// The client config `berth dev` writes for the CLI: .berth/client.json
// in the directory it runs in, and client.json in the user's config
// directory. The CLI reads them in cli.go (globals.connection).

// writeClientConfig lets CLI verbs run in this directory find the gateway
// without BERTH_URL.
func writeClientConfig(dataDir, url, token string) error {
	return writeConfigFile(filepath.Join(dataDir, "client.json"), url, token)
}

// writeUserClientConfig writes the same config to the user's config
// directory (e.g. ~/.config/berth/client.json), so the CLI finds the gateway
// from any directory, the way docker and kubectl users expect. A file there
// that points the CLI at another gateway (a shared or production one the
// user set up) is not replaced: foreignConfigError.
func writeUserClientConfig(url, token string) (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "berth")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	// MkdirAll leaves an existing directory's mode alone; only the user
	// may reach the token.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "client.json")
	if err := checkReplaceable(path); err != nil {
		return path, err
	}
	return path, writeConfigFile(path, url, token)
}

// devWriter marks the config files `berth dev` writes ("writtenBy"), so a
// later `berth dev` knows it may replace them.
const devWriter = "berth dev"

// foreignConfigError: the user's client.json names a gateway that is not
// a `berth dev` one.
type foreignConfigError struct{ path, url string }

func (e foreignConfigError) Error() string {
	return e.path + " names another gateway (" + e.url + "); not replaced"
}

// checkReplaceable allows replacing path when it does not exist, or holds
// a config `berth dev` wrote: marked as such, or (files from before the
// mark) naming a plain-HTTP gateway on loopback, which only a dev stack
// serves. Anything else, unreadable JSON included, is the user's own.
func checkReplaceable(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var cfg struct {
		URL       string `json:"url"`
		WrittenBy string `json:"writtenBy"`
	}
	if json.Unmarshal(b, &cfg) == nil && (cfg.WrittenBy == devWriter || loopbackHTTP(cfg.URL)) {
		return nil
	}
	return foreignConfigError{path: path, url: cfg.URL}
}

// loopbackHTTP reports whether u is http:// to a loopback address or
// localhost.
func loopbackHTTP(u string) bool {
	pu, err := neturl.Parse(u)
	if err != nil || pu.Scheme != "http" {
		return false
	}
	h := pu.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// writeConfigFile replaces path atomically with a 0600 file holding the
// gateway's URL and token.
func writeConfigFile(path, url, token string) error {
	b, err := json.MarshalIndent(map[string]string{"url": url, "token": token, "writtenBy": devWriter}, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".client-*.json") // created 0600
	if err != nil {
		return errors.New("write " + path + ": " + err.Error())
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return errors.New("write " + path + ": " + err.Error())
	}
	return nil
}
