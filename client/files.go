package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/berthdev/berth/api"

	"github.com/berthdev/berth/internal/unixmode"
)

// File API error codes.
const (
	ErrFileNotFound       = api.CodeFileNotFound
	ErrIsDirectory        = api.CodeIsDirectory
	ErrNotDirectory       = api.CodeNotDirectory
	ErrNotEmpty           = api.CodeNotEmpty
	ErrAlreadyExists      = api.CodeAlreadyExists
	ErrNotRegular         = api.CodeNotRegular
	ErrInvalidPath        = api.CodeInvalidPath
	ErrPathEscape         = api.CodePathEscape
	ErrPermissionDenied   = api.CodePermissionDenied
	ErrNoSpace            = api.CodeNoSpace
	ErrPreconditionFailed = api.CodePreconditionFailed
	ErrInvalidArchive     = api.CodeInvalidArchive
)

// FileInfo describes a file in the sandbox.
type FileInfo struct {
	Name    string
	Path    string
	Type    string // file | directory | symlink | fifo | socket | device
	Size    int64
	Mode    fs.FileMode // permission bits plus setuid/setgid/sticky
	ModTime time.Time
	Target  string // symlinks: the link text
}

// IsDir reports whether the entry is a directory.
func (f *FileInfo) IsDir() bool { return f.Type == "directory" }

func parseMode(s string) fs.FileMode {
	u, _ := strconv.ParseUint(s, 8, 32)
	return unixmode.ToFS(uint32(u))
}

func modeString(m fs.FileMode) string { return fmt.Sprintf("%04o", unixmode.FromFS(m)) }

func fileInfoOf(w api.FileInfo) FileInfo {
	return FileInfo{Name: w.Name, Path: w.Path, Type: w.Type, Size: w.Size, Mode: parseMode(w.Mode), ModTime: w.Mtime, Target: w.Target}
}

// filesPath builds /v1/sandboxes/{name}/files/<escaped absolute path>.
func (s *Sandbox) filesPath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", &Error{Status: http.StatusBadRequest, Code: string(ErrInvalidPath), Message: "path " + strconv.Quote(p) + " must be absolute"}
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return "/v1/sandboxes/" + url.PathEscape(s.name) + "/files" + strings.Join(segs, "/"), nil
}

// do sends a request with an optional streamed body and returns the 2xx
// response (other statuses become *Error).
func (s *Sandbox) do(ctx context.Context, method, path string, q url.Values, body io.Reader, size int64, hdr http.Header) (*http.Response, error) {
	u := s.c.baseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+s.c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/octet-stream")
		if size >= 0 {
			req.ContentLength = size
		}
	}
	return s.c.do(req)
}

func (s *Sandbox) fileCall(ctx context.Context, method, p string, q url.Values, out any) error {
	path, err := s.filesPath(p)
	if err != nil {
		return err
	}
	resp, err := s.do(ctx, method, path, q, nil, -1, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func infoFromHeaders(p string, h http.Header) FileInfo {
	fi := FileInfo{Path: p, Type: h.Get("X-Berth-Type"), Mode: parseMode(h.Get("X-Berth-Mode"))}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		fi.Name = p[i+1:]
	}
	fi.Size, _ = strconv.ParseInt(h.Get("X-Berth-Size"), 10, 64)
	fi.ModTime, _ = time.Parse(time.RFC3339Nano, h.Get("X-Berth-Mtime"))
	return fi
}

// ReadFile streams the file at path (symlinks followed). Close the reader.
// Large files are not buffered anywhere on the way.
func (s *Sandbox) ReadFile(ctx context.Context, path string) (io.ReadCloser, FileInfo, error) {
	return s.ReadFileRange(ctx, path, 0, -1)
}

// ReadFileRange streams length bytes from offset (length < 0: to the end).
func (s *Sandbox) ReadFileRange(ctx context.Context, path string, offset, length int64) (io.ReadCloser, FileInfo, error) {
	u, err := s.filesPath(path)
	if err != nil {
		return nil, FileInfo{}, err
	}
	var hdr http.Header
	switch {
	case length == 0:
		return io.NopCloser(strings.NewReader("")), FileInfo{}, nil
	case length > 0:
		hdr = http.Header{"Range": {fmt.Sprintf("bytes=%d-%d", offset, offset+length-1)}}
	case offset > 0:
		hdr = http.Header{"Range": {fmt.Sprintf("bytes=%d-", offset)}}
	}
	resp, err := s.do(ctx, http.MethodGet, u, nil, nil, -1, hdr)
	if err != nil {
		return nil, FileInfo{}, err
	}
	return resp.Body, infoFromHeaders(path, resp.Header), nil
}

// WriteOptions tune WriteFile.
type WriteOptions struct {
	// Mode of the file; 0 keeps the mode of the file replaced, or 0644.
	Mode fs.FileMode
	// Mkdir creates missing parent directories.
	Mkdir bool
	// Size of the content when known and r is not a *bytes.Reader,
	// *strings.Reader or *os.File (those are measured); else the body is
	// sent chunked. 0 means unknown.
	Size int64
}

// WriteFile streams r into path. The sandbox writes a temporary file next
// to it and renames it into place: readers never see a partial file.
func (s *Sandbox) WriteFile(ctx context.Context, path string, r io.Reader, o WriteOptions) (*FileInfo, error) {
	u, err := s.filesPath(path)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if o.Size > 0 {
		size = o.Size
	}
	switch v := r.(type) {
	case interface{ Len() int }:
		size = int64(v.Len())
	case *os.File:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := v.Seek(0, io.SeekCurrent); err == nil {
				size = fi.Size() - off
			}
		}
	}
	var body io.Reader = io.NopCloser(r) // the transport must not close the caller's reader
	if size == 0 {
		body = http.NoBody
	}
	hdr := http.Header{}
	if o.Mode != 0 {
		hdr.Set("X-Berth-Mode", modeString(o.Mode))
	}
	if o.Mkdir {
		hdr.Set("X-Berth-Mkdir", "true")
	}
	resp, err := s.do(ctx, http.MethodPut, u, nil, body, size, hdr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var w api.FileInfo
	if err := json.NewDecoder(resp.Body).Decode(&w); err != nil {
		return nil, err
	}
	fi := fileInfoOf(w)
	return &fi, nil
}

// Stat describes path itself (a symlink is reported as a symlink).
func (s *Sandbox) Stat(ctx context.Context, path string) (*FileInfo, error) {
	var w api.FileInfo
	if err := s.fileCall(ctx, http.MethodGet, path, url.Values{"stat": {"true"}}, &w); err != nil {
		return nil, err
	}
	fi := fileInfoOf(w)
	return &fi, nil
}

// Exists reports whether something is at path (a dangling symlink counts).
func (s *Sandbox) Exists(ctx context.Context, path string) (bool, error) {
	_, err := s.Stat(ctx, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrFileNotFound), errors.Is(err, ErrNotDirectory):
		return false, nil
	}
	return false, err
}

// ListOptions tune List.
type ListOptions struct {
	Recursive     bool // descend into directories (not through symlinks)
	IncludeHidden bool // names starting with "."
}

// List returns the entries of the directory at path, depth first in name
// order.
func (s *Sandbox) List(ctx context.Context, path string, o ListOptions) ([]FileInfo, error) {
	q := url.Values{"list": {"true"}}
	if o.Recursive {
		q.Set("recursive", "true")
	}
	if o.IncludeHidden {
		q.Set("includeHidden", "true")
	}
	var ws []api.FileInfo
	if err := s.fileCall(ctx, http.MethodGet, path, q, &ws); err != nil {
		return nil, err
	}
	out := make([]FileInfo, len(ws))
	for i, w := range ws {
		out[i] = fileInfoOf(w)
	}
	return out, nil
}

// Remove deletes a file, symlink or empty directory; recursive removes
// whole trees. ErrFileNotFound if nothing is there.
func (s *Sandbox) Remove(ctx context.Context, path string, recursive bool) error {
	var q url.Values
	if recursive {
		q = url.Values{"recursive": {"true"}}
	}
	return s.fileCall(ctx, http.MethodDelete, path, q, nil)
}

// Move renames from to to (replacing a file there, or an empty directory).
func (s *Sandbox) Move(ctx context.Context, from, to string) (*FileInfo, error) {
	var w api.FileInfo
	if err := s.fileCall(ctx, http.MethodPost, from, url.Values{"op": {"move"}, "to": {to}}, &w); err != nil {
		return nil, err
	}
	fi := fileInfoOf(w)
	return &fi, nil
}

// Mkdir creates a directory and its parents (mkdir -p); an existing
// directory is not an error.
func (s *Sandbox) Mkdir(ctx context.Context, path string) error {
	return s.fileCall(ctx, http.MethodPost, path, url.Values{"op": {"mkdir"}}, nil)
}

func (s *Sandbox) archivePath() string {
	return "/v1/sandboxes/" + url.PathEscape(s.name) + "/archive"
}

// DownloadArchive streams the tree at path as a tar (symlinks stored as
// symlinks). Close the reader.
func (s *Sandbox) DownloadArchive(ctx context.Context, path string) (io.ReadCloser, error) {
	resp, err := s.do(ctx, http.MethodGet, s.archivePath(), url.Values{"path": {path}}, nil, -1, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// ArchiveStats is what an upload extracted.
type ArchiveStats = api.ArchiveStats

// UploadArchive extracts a tar (or tar.gz) stream into the directory at
// path, creating it and merging with its content. Members that would land
// outside path fail the upload with ErrPathEscape.
func (s *Sandbox) UploadArchive(ctx context.Context, path string, r io.Reader) (*ArchiveStats, error) {
	resp, err := s.do(ctx, http.MethodPut, s.archivePath(), url.Values{"path": {path}}, io.NopCloser(r), -1, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	st := new(ArchiveStats)
	if err := json.NewDecoder(resp.Body).Decode(st); err != nil {
		return nil, err
	}
	return st, nil
}
