package schemas

import "strings"

// Types lists every event type of the catalogue in the order a sandbox's life
// produces them, so tests and docs can iterate the whole catalogue.
func Types() []string {
	return []string{
		TypeCreateRequested, TypeCreated, TypeStartRequested, TypeStarted,
		TypeWorkspaceRestored, TypeSleepRequested, TypeBackupCreated,
		TypeBackupFailed, TypeStopped, TypeConfigured, TypeKillRequested,
		TypeDestroyRequested, TypeDestroyed,
	}
}

// ShortName is the type without the catalogue's namespace ("created"); it names the
// schema file events/<short>.json. It returns "" for a type outside the catalogue.
func ShortName(typ string) string {
	short, ok := strings.CutPrefix(typ, prefix)
	if !ok || !IsKnownType(typ) {
		return ""
	}
	return short
}

// IsKnownType reports whether typ is one of the catalogue's event types.
func IsKnownType(typ string) bool {
	for _, t := range Types() {
		if t == typ {
			return true
		}
	}
	return false
}

// NewPayload returns a pointer to the zero Go value of typ's payload, for
// decoding an envelope's payload; nil for an unknown type.
func NewPayload(typ string) any {
	switch typ {
	case TypeCreateRequested:
		return &CreateRequested{}
	case TypeCreated:
		return &Created{}
	case TypeConfigured:
		return &Configured{}
	case TypeBackupCreated:
		return &BackupCreated{}
	case TypeBackupFailed:
		return &BackupFailed{}
	case TypeWorkspaceRestored:
		return &WorkspaceRestored{}
	}
	if IsKnownType(typ) {
		return &Empty{}
	}
	return nil
}
