package main

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The server commands keep the flags, defaults and help texts they had
// as stdlib FlagSets.
func TestServerCommandFlags(t *testing.T) {
	t.Setenv("BERTH_HOST_ID", "h7")
	want := map[string]string{
		"dev":     "data-dir default-image instance-types keep-running listen metrics-listen namespace supervisor temporal-address temporal-port ui-port",
		"worker":  "data-dir default-image host-addr host-id instance-types metrics-listen namespace supervisor temporal-address temporal-tls temporal-tls-ca temporal-tls-cert temporal-tls-key temporal-tls-server-name",
		"gateway": "data-dir instance-types listen metrics-listen namespace temporal-address temporal-tls temporal-tls-ca temporal-tls-cert temporal-tls-key temporal-tls-server-name",
	}
	root := newRootCmd()
	for name, flags := range want {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Fatalf("find %s: %v", name, err)
		}
		var got []string
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" {
				got = append(got, f.Name)
			}
		})
		sort.Strings(got)
		if strings.Join(got, " ") != flags {
			t.Errorf("berth %s flags = %v, want %s", name, got, flags)
		}
	}
	w, _, _ := root.Find([]string{"worker"})
	if f := w.Flags().Lookup("host-id"); f.DefValue != "h7" || !strings.Contains(f.Usage, "(BERTH_HOST_ID)") {
		t.Errorf("--host-id default %q usage %q: want the BERTH_HOST_ID value and its name", f.DefValue, f.Usage)
	}
}

// A client verb's flag on a server command is a usage error, not ignored.
func TestServerCommandRejectsClientFlags(t *testing.T) {
	root := newRootCmd()
	root.SetArgs([]string{"gateway", "--token", "x"})
	err := root.Execute()
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "unknown flag: --token") {
		t.Fatalf("berth gateway --token x: %v, want a usage error", err)
	}
}
