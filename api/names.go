package api

import "regexp"

// SandboxNameRule says in words what ValidSandboxName accepts.
const SandboxNameRule = "1-63 lowercase letters, digits and '-', starting with a letter or digit"

var (
	sandboxNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	// A backup id sorts by creation time: 20060102T150405Z-<8 hex>.
	backupIDRE = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)
)

// ValidSandboxName reports whether name is a sandbox name: one path
// segment that is safe in URLs, file paths, Docker names and blob keys. The
// gateway, the workflow, the backup store and the CLI all check with it, so
// a name one layer accepts is never one another would misread.
func ValidSandboxName(name string) bool { return sandboxNameRE.MatchString(name) }

// ValidBackupID reports whether id has the form backup ids are made in.
func ValidBackupID(id string) bool { return backupIDRE.MatchString(id) }
