// Package names holds the one rule for sandbox names and the formats of the
// ids that end up in file paths, volume and container names. The gateway,
// the workflow, the activities, the backup store and the CLI all check with
// it, so a name one layer accepts is never one another would misread.
package names

import "regexp"

// SandboxRule says in words what ValidSandbox accepts.
const SandboxRule = "1-63 lowercase letters, digits and '-', starting with a letter or digit"

var (
	sandboxRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	// A backup id sorts by creation time: 20060102T150405Z-<8 hex>.
	backupIDRE = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)
	// A boot id is a lowercase UUID (the workflow draws it).
	bootIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	// A Docker container id is 64 hex digits.
	containerIDRE = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ValidSandbox reports whether name is a sandbox name: one path segment
// that is safe in file paths, Docker names and blob keys.
func ValidSandbox(name string) bool { return sandboxRE.MatchString(name) }

// ValidBackupID reports whether id has the form backup ids are made in.
func ValidBackupID(id string) bool { return backupIDRE.MatchString(id) }

// ValidBootID reports whether id is a boot id (a lowercase UUID).
func ValidBootID(id string) bool { return bootIDRE.MatchString(id) }

// ValidContainerID reports whether id is a full Docker container id.
func ValidContainerID(id string) bool { return containerIDRE.MatchString(id) }
