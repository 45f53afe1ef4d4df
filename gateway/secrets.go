package gateway

import "github.com/berthdev/berth/api"

// checkSecretMaterial rejects values that look like raw secrets before they
// reach history (history is forever); the error names the key, never the
// value.
func checkSecretMaterial(key, value string) error { return api.CheckEnvValue(key, value) }
