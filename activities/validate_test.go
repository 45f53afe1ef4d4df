package activities

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/workflows/contract"
)

// Every activity refuses names and ids that would become paths, Docker
// names or addresses outside what it owns, before it touches anything:
// Activities here has no Docker client, no store and no HTTP client, so an
// activity that went on would panic instead of answering.
func TestActivitiesRefuseBadNamesAndIDs(t *testing.T) {
	a := &Activities{DataDir: t.TempDir()}
	ctx := context.Background()
	bootID := "0b6c1e3a-5f1d-4b8e-9c2a-7d3e4f5a6b7c"
	good := contract.Container{ID: strings.Repeat("ab", 32), Host: "h1", Addr: "172.18.0.2:7070", BootID: bootID}
	with := func(f func(*contract.Container)) contract.Container { c := good; f(&c); return c }
	cases := map[string]func() error{
		"boot: path in name": func() error {
			_, err := a.Boot(ctx, contract.BootInput{Sandbox: "x/../../etc/cron.d/p", InstanceType: "basic", BootID: bootID})
			return err
		},
		"boot: dot-dot name": func() error {
			_, err := a.Boot(ctx, contract.BootInput{Sandbox: "..", InstanceType: "basic", BootID: bootID})
			return err
		},
		"boot: bad boot id": func() error {
			_, err := a.Boot(ctx, contract.BootInput{Sandbox: "ok", InstanceType: "basic", BootID: "x\nBERTH_X=1"})
			return err
		},
		"boot: path in backup id": func() error {
			_, err := a.Boot(ctx, contract.BootInput{Sandbox: "ok", InstanceType: "basic", BootID: bootID, RestoreBackupID: "../../../etc/passwd"})
			return err
		},
		"stop": func() error {
			_, err := a.Stop(ctx, contract.StopInput{Sandbox: "a/b", Container: good})
			return err
		},
		"snapshot": func() error {
			_, err := a.Snapshot(ctx, contract.StopInput{Sandbox: "A", Container: good})
			return err
		},
		"destroy": func() error { return a.Destroy(ctx, contract.DestroyInput{Sandbox: "../x"}) },
		"watch": func() error {
			_, err := a.Watch(ctx, with(func(c *contract.Container) { c.ID = "../../images/x" }))
			return err
		},
		"idle: addr": func() error {
			_, err := a.CheckIdle(ctx, with(func(c *contract.Container) { c.Addr = "attacker.example:80" }))
			return err
		},
		"idle: boot": func() error {
			_, err := a.CheckIdle(ctx, with(func(c *contract.Container) { c.BootID = "" }))
			return err
		},
		"env: address": func() error {
			return a.ApplyEnv(ctx, contract.EnvInput{Container: with(func(c *contract.Container) { c.Addr = "10.0.0.1:22" })})
		},
	}
	for what, call := range cases {
		t.Run(what, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("went on past its input check: %v", r)
					}
				}()
				err = call()
			}()
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || app.Type() != ErrInvalidInput || !app.NonRetryable() {
				t.Fatalf("want a non-retryable %s error, got %v", ErrInvalidInput, err)
			}
		})
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("a real container must validate: %v", err)
	}
}
