package supervisorapi

// Routes of the supervisor's own API (supervisor/doc.go lists them with
// their bodies). The hot-path kinds are served by the gateway as
// /v1/sandboxes/{name}/<kind>/... and by the supervisor as /v1/<kind>/...
const (
	PathHealth   = "/v1/health"
	PathActivity = "/v1/activity"
	PathEnv      = "/v1/env"
	PathStats    = "/v1/stats"
	PathDoze     = "/v1/doze"
	PathThaw     = "/v1/thaw"
	PathServices = "/v1/services"

	PathProcesses = "/v1/processes"
	PathTerminals = "/v1/terminals"
	PathFiles     = "/v1/files"
	PathArchive   = "/v1/archive"
)

// KindPath is the supervisor's path of a hot-path kind ("processes",
// "files", ...) and the rest of the gateway's path after it.
func KindPath(kind, rest string) string { return "/v1/" + kind + rest }
