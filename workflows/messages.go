package workflows

import (
	"regexp"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
)

// ConfigureRequest changes the sandbox env; a nil value unsets the key.
type ConfigureRequest struct {
	Env map[string]*string `json:"env"`
}

// PatchRequest changes idle behaviour; nil fields stay as they are.
type PatchRequest struct {
	SleepAfter *time.Duration `json:"sleepAfter,omitempty"`
	KeepAlive  *bool          `json:"keepAlive,omitempty"`
}

// StartRequest optionally names the backup to restore instead of the
// newest one: the way back when the newest backup is corrupt. Size is the
// named backup's, as the caller read it from its manifest (for the
// restore's timeout).
type StartRequest struct {
	BackupID string     `json:"backupId,omitempty"`
	Size     BackupSize `json:"size,omitzero"`
}

// backupIDRE is a backup id as package backup makes them.
var backupIDRE = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)

func (r StartRequest) validate() error {
	if r.BackupID != "" && !backupIDRE.MatchString(r.BackupID) {
		return validationError("backupId " + strconv.Quote(r.BackupID) + " is not a backup id")
	}
	return nil
}

// Intent is one queued operation. Update handlers and signal handlers only
// enqueue intents; the main loop applies them one at a time.
type Intent struct {
	Seq       int64             `json:"seq"`
	Op        Op                `json:"op"`
	Configure *ConfigureRequest `json:"configure,omitempty"`
	Patch     *PatchRequest     `json:"patch,omitempty"`
	Start     *StartRequest     `json:"start,omitempty"`
	// FromUpdate marks intents whose caller waits for a result.
	FromUpdate bool `json:"fromUpdate,omitempty"`
}

// result is what an Update caller gets back for its intent.
type result struct {
	view View
	err  error
}

// Limits on what a sandbox may be configured with.
const (
	MinSleepAfter = time.Second
	MaxSleepAfter = 7 * 24 * time.Hour
)

func validationError(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, ErrValidation, nil)
}

func destroyedError(name string) error {
	return temporal.NewNonRetryableApplicationError("sandbox "+name+" was destroyed; pick a new name", ErrDestroyed, nil)
}

func (r *PatchRequest) validate() error {
	if r == nil || (r.SleepAfter == nil && r.KeepAlive == nil) {
		return validationError("patch needs sleepAfter or keepAlive")
	}
	if d := r.SleepAfter; d != nil && (*d < MinSleepAfter || *d > MaxSleepAfter) {
		return validationError("sleepAfter must be between 1s and 168h")
	}
	return nil
}

func (r *ConfigureRequest) validate() error {
	if r == nil || len(r.Env) == 0 {
		return validationError("env must name at least one variable")
	}
	if len(r.Env) > maxEnvChangeKeys {
		return validationError("too many env variables")
	}
	return nil
}
