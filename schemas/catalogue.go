package schemas

import "github.com/berthdev/berth/api"

// NewPayload returns a pointer to the zero Go value of typ's payload, for
// decoding an envelope's payload; nil for an unknown type.
func NewPayload(typ string) any {
	switch typ {
	case api.EventCreateRequested:
		return &CreateRequested{}
	case api.EventCreated:
		return &Created{}
	case api.EventConfigured:
		return &Configured{}
	case api.EventBackupCreated:
		return &BackupCreated{}
	case api.EventBackupFailed:
		return &BackupFailed{}
	case api.EventWorkspaceRestored:
		return &WorkspaceRestored{}
	case api.EventEgressPolicyChanged:
		return &EgressPolicyChanged{}
	case api.EventEgressRefused:
		return &EgressRefused{}
	case api.EventServicesChanged:
		return &ServicesChanged{}
	case api.EventPortsChanged:
		return &PortsChanged{}
	case api.EventHostLost:
		return &HostLost{}
	case api.EventImagePulling:
		return &ImagePulling{}
	case api.EventWorkspaceRolledBack:
		return &WorkspaceRolledBack{}
	case api.EventStartFailed:
		return &StartFailed{}
	case api.EventDozed:
		return &Dozed{}
	case api.EventThawed:
		return &Thawed{}
	}
	if api.IsKnownEventType(typ) {
		return &Empty{}
	}
	return nil
}
