package contract

// ActivityArchiveEvents (ArchiveEventsInput -> ArchiveEventsResult) copies
// the events of a closed run of a sandbox's workflow, and of every earlier
// run not copied yet, to the blob store, where they outlive Temporal's
// retention of closed runs. Any worker runs it (the shared queue).
const ActivityArchiveEvents = "ArchiveEvents"

// ArchiveEventsInput names the run to archive: the one the calling run
// continues, which is closed by the time the activity runs.
type ArchiveEventsInput struct {
	Sandbox string `json:"sandbox"`
	RunID   string `json:"runId"`
}

// ArchiveEventsResult lists the runs written, oldest first, and the newest
// run Temporal had already deleted before it could be archived ("" if none).
type ArchiveEventsResult struct {
	Archived []string `json:"archived,omitempty"`
	Gone     string   `json:"gone,omitempty"`
}
