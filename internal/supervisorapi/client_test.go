package supervisorapi_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

var supervisorBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "supervisorapi")
	if err != nil {
		panic(err)
	}
	supervisorBin, err = supervisortest.Build(dir)
	if err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestClientSpeaksTheSupervisorsRoutes: every typed call is answered by a
// real supervisor as its route says, so a path or body the two sides
// disagree on fails here.
func TestClientSpeaksTheSupervisorsRoutes(t *testing.T) {
	inst := supervisortest.Start(t, supervisorBin, supervisortest.Options{})
	c := supervisorapi.Client{HTTP: &http.Client{}, Base: inst.URL, Auth: "Bearer " + inst.Token}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	h, err := c.Health(ctx)
	require.NoError(t, err)
	require.Equal(t, inst.BootID, h.BootID)
	require.Equal(t, inst.PID, h.PID)

	require.NoError(t, c.SetEnv(ctx, map[string]string{"GREETING": "hi"}))
	require.NoError(t, c.SetEnv(ctx, nil), "an empty env layer is a valid one")

	require.NoError(t, c.Hold(ctx, 2*time.Second))
	r, err := c.Activity(ctx)
	require.NoError(t, err)
	require.Equal(t, inst.BootID, r.BootID)
	require.NotNil(t, r.HeldUntil, "the hold is reported")
	require.Zero(t, r.ClientIdleMs, "a hold is a client's activity")

	d, err := c.Doze(ctx, time.Hour.Milliseconds())
	require.NoError(t, err)
	require.False(t, d.Dozed, "a held sandbox has not been idle for an hour")
	require.NoError(t, c.Thaw(ctx))

	require.NoError(t, c.SetServices(ctx, []api.Service{}))
	l, err := c.Services(ctx)
	require.NoError(t, err)
	require.Empty(t, l.Services)

	cs, err := c.Stats(ctx)
	require.NoError(t, err)
	require.True(t, cs.Valid(), "%+v", cs)

	bad := c
	bad.Auth = "Bearer another-boot"
	_, err = bad.Health(ctx)
	var se *supervisorapi.Error
	require.True(t, errors.As(err, &se), "%v", err)
	require.Equal(t, http.StatusUnauthorized, se.Status)
}
