package contract

import (
	"strconv"
	"time"

	"github.com/berthdev/berth/api"
)

// ConfigureRequest changes the sandbox env; a nil value unsets the key.
type ConfigureRequest struct {
	Env map[string]*string `json:"env"`
}

// PatchRequest changes idle behaviour; nil fields stay as they are.
type PatchRequest struct {
	SleepAfter *time.Duration `json:"sleepAfter,omitempty"`
	KeepAlive  *bool          `json:"keepAlive,omitempty"`
	// DozeAfter 0 turns dozing off.
	DozeAfter *time.Duration `json:"dozeAfter,omitempty"`
}

// ThawRequest says why a dozing sandbox is thawed (the thawed event's
// cause): "exec", "files", "terminal", "logs", "preview", "start"...
type ThawRequest struct {
	Cause string `json:"cause,omitempty"`
}

// MaxThawCause bounds a thaw's cause, which lands in history.
const MaxThawCause = 32

// Validate refuses a cause that is not a short lower-case word.
func (r ThawRequest) Validate() error {
	if len(r.Cause) > MaxThawCause {
		return ValidationError("thaw cause is too long")
	}
	for _, c := range r.Cause {
		if (c < 'a' || c > 'z') && c != '-' {
			return ValidationError("thaw cause must be lower-case letters and dashes")
		}
	}
	return nil
}

// StartRequest optionally names the backup to restore instead of the
// newest one: the way back when the newest backup is corrupt. Size is the
// named backup's, as the caller read it from its manifest (for the
// restore's timeout).
type StartRequest struct {
	BackupID string     `json:"backupId,omitempty"`
	Size     BackupSize `json:"size,omitzero"`
	// AllowRollback consents to a start from the newest backup when the
	// host that held newer data is lost (ErrRollbackNeeded otherwise).
	AllowRollback bool `json:"allowRollback,omitempty"`
}

// BackupSize is what the workflow knows of a backup's size.
type BackupSize struct {
	Bytes int64 `json:"bytes,omitempty"`
	Files int64 `json:"files,omitempty"`
}

// Validate refuses a start naming something that is not a backup id.
func (r StartRequest) Validate() error {
	if r.BackupID != "" && !api.ValidBackupID(r.BackupID) {
		return ValidationError("backupId " + strconv.Quote(r.BackupID) + " is not a backup id")
	}
	return nil
}

// Validate refuses a patch that changes nothing or a sleepAfter out of
// bounds.
func (r *PatchRequest) Validate() error {
	if r == nil || (r.SleepAfter == nil && r.KeepAlive == nil && r.DozeAfter == nil) {
		return ValidationError("patch needs sleepAfter, dozeAfter or keepAlive")
	}
	if d := r.SleepAfter; d != nil && (*d < MinSleepAfter || *d > MaxSleepAfter) {
		return ValidationError("sleepAfter must be between 1s and 168h")
	}
	if d := r.DozeAfter; d != nil && *d != 0 && (*d < MinDozeAfter || *d > MaxSleepAfter) {
		return ValidationError("dozeAfter must be 0 (off) or between 1s and 168h")
	}
	return nil
}

// Validate checks the shape of a change; the workflow checks the env it
// would make (keys, values, bounds) against the current one.
func (r *ConfigureRequest) Validate() error {
	if r == nil || len(r.Env) == 0 {
		return ValidationError("env must name at least one variable")
	}
	if len(r.Env) > MaxEnvChangeKeys {
		return ValidationError("too many env variables")
	}
	return nil
}
