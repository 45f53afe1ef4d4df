package api

import "time"

// FileInfo is a file's stat and a directory listing's entry (the FileInfo
// schema).
type FileInfo struct {
	Name   string    `json:"name"`
	Path   string    `json:"path"`
	Type   string    `json:"type"` // file | directory | symlink | fifo | socket | device
	Size   int64     `json:"size"`
	Mode   string    `json:"mode"` // octal permission and setuid/setgid/sticky bits, "0644"
	Mtime  time.Time `json:"mtime"`
	Target string    `json:"target,omitempty"` // symlinks: the link text
}

// ArchiveStats answers PUT .../archive: what the tar stream created.
type ArchiveStats struct {
	Path      string `json:"path"`
	Files     int    `json:"files"`
	Dirs      int    `json:"dirs"`
	Symlinks  int    `json:"symlinks"`
	Hardlinks int    `json:"hardlinks"`
	Bytes     int64  `json:"bytes"`
	Skipped   int    `json:"skipped"` // devices and other types not extracted
}
