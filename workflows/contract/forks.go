package contract

import (
	"strconv"

	"github.com/berthdev/berth/api"
)

// MemoSpecFrom is a fork's request as the caller gave it (origin sandbox
// and the backup it named, if any) and the backup it resolved to, set at
// create beside MemoSpec: an identical repeat compares equal to the
// request, whatever backup it resolved to.
const MemoSpecFrom = "berth.spec.from"

// ForkOrigin is the backup a fork's workspace starts as. The gateway has
// already copied that backup, under the same id, into the fork's own
// backups, so the fork's first boot restores it like any backup of its
// own and retention of the origin never touches it.
type ForkOrigin struct {
	Sandbox  string     `json:"sandbox"`
	BackupID string     `json:"backupId"`
	Size     BackupSize `json:"size,omitzero"`
}

// Validate refuses an origin the activities would refuse.
func (o *ForkOrigin) Validate() error {
	if err := CheckSandbox(o.Sandbox); err != nil {
		return err
	}
	if !api.ValidBackupID(o.BackupID) {
		return ValidationError("fork backupId " + strconv.Quote(o.BackupID) + " is not a backup id")
	}
	return nil
}
