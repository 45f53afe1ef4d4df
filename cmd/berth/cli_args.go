package main

// Arguments shared by the verbs: durations, KEY=VALUE env pairs, and the
// completion of sandbox names.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// parseDuration accepts the API's durations (api.ParseDuration): "30s",
// "3m", "1h" or a number of seconds.
func parseDuration(s string) (time.Duration, error) {
	d, err := api.ParseDuration(s)
	if err != nil {
		return 0, usageError{err}
	}
	return d, nil
}

// parseEnv reads K=V pairs.
func parseEnv(pairs []string) (map[string]string, error) {
	env := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, usageError{fmt.Errorf("env %q: write KEY=VALUE", p)}
		}
		env[k] = v
	}
	return env, nil
}

// envLayer turns --env KEY=VALUE flags into a request's env layer (nil
// when there are none).
func envLayer(pairs []string) (map[string]*string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	kv, err := parseEnv(pairs)
	if err != nil {
		return nil, err
	}
	env := make(map[string]*string, len(kv))
	for k, v := range kv {
		env[k] = client.Ptr(v)
	}
	return env, nil
}

// completeSandboxes completes the first argument with sandbox names.
func completeSandboxes(g *globals) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return sandboxNames(cmd.Context(), g, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func sandboxNames(ctx context.Context, g *globals, prefix string) []cobra.Completion {
	c, err := g.client()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	list, err := c.List(ctx, "")
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, s := range list {
		if strings.HasPrefix(s.Name, prefix) && termsafe.Safe(s.Name) {
			out = append(out, cobra.CompletionWithDesc(s.Name, termsafe.String(s.Status)))
		}
	}
	return out
}
