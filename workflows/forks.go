package workflows

import (
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// A fork starts with its origin's backup as its own newest backup (the
// gateway copied it into the fork's backups under the same id), so the
// first boot restores it through the ordinary path: no new commands, and
// runs without From behave exactly as before (no version marker needed).

// startFork makes the origin's backup the one the first boot restores.
func (s *sandbox) startFork(from *contract.ForkOrigin) error {
	if from == nil {
		return nil
	}
	if err := from.Validate(); err != nil {
		return err
	}
	if from.Sandbox == s.st.Config.Name {
		return contract.ValidationError("a sandbox cannot be forked from itself")
	}
	s.st.LastBackupID, s.st.LastBackupSize = from.BackupID, from.Size
	return nil
}

// forkOrigin is what the created event says of the origin, nil if none.
func (s *sandbox) forkOrigin() *schemas.ForkOrigin {
	if s.in.State != nil || s.in.From == nil {
		return nil
	}
	return &schemas.ForkOrigin{Sandbox: s.in.From.Sandbox, BackupID: s.in.From.BackupID}
}
