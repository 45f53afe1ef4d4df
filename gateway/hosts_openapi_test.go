package gateway_test

import "github.com/berthdev/berth/api"

// The host routes' schemas and their api types (see wireTypes).
func init() {
	wireTypes["Host"] = api.Host{}
	wireTypes["Resources"] = api.Resources{}
	wireTypes["DrainResult"] = api.DrainResult{}
	wireTypes["DrainedSandbox"] = api.DrainedSandbox{}
}
