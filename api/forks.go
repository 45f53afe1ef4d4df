package api

// ForkFrom is the "from" of a create request (the ForkFrom schema): the new
// sandbox's workspace starts as Sandbox's backup BackupID, or, without
// one, as a fresh snapshot of Sandbox when it runs and its newest good
// backup otherwise.
type ForkFrom struct {
	Sandbox  string `json:"sandbox"`
	BackupID string `json:"backupId,omitempty"`
}
