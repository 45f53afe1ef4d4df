// Package supervisorapi is the contract between the supervisor in a
// sandbox and those who call it (the worker's activities, the gateway):
// the environment variables the worker sets on the container and the path
// of the token file it puts there at boot (env.go), the supervisor's own
// routes and their bodies (routes.go, bodies.go), and a typed client for
// them (client.go). Every side names them from here, so none retypes
// another's literals.
package supervisorapi

// Environment of the supervisor. It reads each once at start and removes
// it, so that the sandbox's processes inherit none of them.
const (
	EnvBootID = "BERTH_BOOT_ID"
	EnvListen = "BERTH_SUPERVISOR_LISTEN"
	// EnvRunAs is the image's USER: whom commands, terminals and services
	// run as, and who owns /workspace and the files the API writes.
	EnvRunAs = "BERTH_RUN_AS"
	// EnvDefaultCwd is the image's WORKDIR (default /workspace).
	EnvDefaultCwd = "BERTH_DEFAULT_CWD"
	// EnvDiskBytes is the size of the sandbox's own disk at /workspace;
	// unset when /workspace is a plain volume of the host's file system.
	EnvDiskBytes = "BERTH_DISK_BYTES"
)

// TokenFile is where the worker puts the boot's supervisor token (in a
// directory of its own) before the container starts; the supervisor reads
// and removes it before anything else runs. Never the environment: that
// stays readable in /proc/1/environ.
const TokenFile = "/.berth-boot/token"
