package api

// File watch event types (the "type" of a FileEvent).
const (
	FileCreated  = "create"
	FileModified = "modify"
	FileDeleted  = "delete"
	FileRenamed  = "rename"
	// FileOverflow says events were lost: the cursor was older than the
	// watch's memory, the watch was restarted (a new container, or no one
	// followed it for a while), or the kernel's queue overflowed. The
	// reader should rescan the tree; the stream goes on after it.
	FileOverflow = "overflow"
)

// FileEvent is one event of GET /v1/sandboxes/{name}/files/watch, the data
// of an SSE event whose id: is ID (resume after it with Last-Event-ID or
// ?after=).
type FileEvent struct {
	ID   uint64 `json:"id"`
	Type string `json:"type"`
	// Path is absolute; for a rename it is the new name.
	Path string `json:"path,omitempty"`
	// From is the old name of a rename.
	From  string `json:"from,omitempty"`
	IsDir bool   `json:"isDir,omitempty"`
	// Reason says why events were lost (overflow only): "cursor",
	// "restarted", "queue" or "watches".
	Reason string `json:"reason,omitempty"`
}
