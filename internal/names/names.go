// Package names holds the formats of the internal ids that end up in file
// paths, volume and container names. The sandbox name rule and the backup
// id format, which are part of the API, are package api's
// (api.ValidSandboxName, api.ValidBackupID).
package names

import "regexp"

var (
	// A boot id is a lowercase UUID (the workflow draws it).
	bootIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	// A Docker container id is 64 hex digits.
	containerIDRE = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ValidBootID reports whether id is a boot id (a lowercase UUID).
func ValidBootID(id string) bool { return bootIDRE.MatchString(id) }

// ValidContainerID reports whether id is a full Docker container id.
func ValidContainerID(id string) bool { return containerIDRE.MatchString(id) }
