package api

import "time"

// Sandbox is the public shape of a sandbox (the Sandbox schema).
// SleepAfter is a Go duration string ("10m0s").
type Sandbox struct {
	Name         string `json:"name"`
	InstanceType string `json:"instanceType"`
	Status       string `json:"status"` // created, starting, running, dozing, stopping, stopped, destroying, destroyed
	SleepAfter   string `json:"sleepAfter"`
	KeepAlive    bool   `json:"keepAlive"`
	// DozeAfter freezes the sandbox in place after this long without a
	// client; absent: it never dozes.
	DozeAfter string            `json:"dozeAfter,omitempty"`
	Env       map[string]string `json:"env"`
	// Image is the sandbox's own image as its create named it, and
	// ImageDigest what that resolved to then, which every boot runs; both
	// absent when the sandbox runs its instance type's image.
	Image        string `json:"image,omitempty"`
	ImageDigest  string `json:"imageDigest,omitempty"`
	LastBackupID string `json:"lastBackupId,omitempty"`
	Host         string `json:"host,omitempty"`
	LastEvent    string `json:"lastEvent,omitempty"`
	// HostLost is set while the host holding the workspace is lost: the
	// sandbox is stopped, and when NewerDataAtRisk its next start needs
	// allowRollback.
	HostLost *HostLoss `json:"hostLost,omitempty"`
	// Egress is the sandbox's egress policy ({"mode": "open"} unless set).
	Egress *EgressPolicy `json:"egress,omitempty"`
	// Ports are the exposed ports (GET of one sandbox only).
	Ports     []ExposedPort `json:"ports,omitempty"`
	CreatedAt time.Time     `json:"createdAt"`
	UpdatedAt time.Time     `json:"updatedAt"`
}

// Backup is one workspace backup (the Backup schema).
type Backup struct {
	BackupID  string    `json:"backupId"`
	Size      int64     `json:"size"`  // compressed bytes in the store
	Bytes     int64     `json:"bytes"` // uncompressed bytes of the files
	Files     int64     `json:"files"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Bad marks a backup that failed to restore as corrupt: it is never
	// restored again unless named, and does not count among the kept ones.
	Bad       bool   `json:"bad,omitempty"`
	BadReason string `json:"badReason,omitempty"`
	// Rescued marks the volume a lost host still held when the sandbox
	// started elsewhere from an older backup (allowRollback), backed up
	// when that host came back: never restored unless named (start with
	// backupId, or fork from it).
	Rescued *RescuedFrom `json:"rescued,omitempty"`
}

// RescuedFrom is where a rescued backup's volume was, and when that host
// was found lost.
type RescuedFrom struct {
	Host   string    `json:"host"`
	LostAt time.Time `json:"lostAt"`
}

// HostLoss is the loss of the host that holds a sandbox's workspace (the
// HostLoss schema): since when the sandbox knows, when the host was last
// seen (absent when the sandbox noticed itself), why, and whether the lost
// volume may hold data newer than the newest backup.
type HostLoss struct {
	Host            string    `json:"host"`
	Since           time.Time `json:"since"`
	LastSeen        time.Time `json:"lastSeen,omitzero"`
	Reason          string    `json:"reason"`
	NewerDataAtRisk bool      `json:"newerDataAtRisk"`
}

// EnvChange is the body of PATCH .../env: each variable set, or unset by
// null.
type EnvChange struct {
	Env map[string]*string `json:"env"`
}

// StartRequest is the body of POST .../start (the StartRequest schema).
// AllowRollback consents to a workspace older than the one on a lost host
// (ROLLBACK_NEEDED without it).
type StartRequest struct {
	BackupID      string `json:"backupId,omitempty"`
	AllowRollback bool   `json:"allowRollback,omitempty"`
}
