package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/client"
)

// workspace is where relative paths are, as in the CLI.
const workspace = "/workspace"

// maxListEntries bounds what list_files returns.
const maxListEntries = 1000

// absPath is p in the sandbox: a relative path is under /workspace.
func absPath(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return path.Join(workspace, p)
}

type readIn struct {
	Sandbox  string `json:"sandbox"`
	Path     string `json:"path" jsonschema:"file path; relative paths are under /workspace"`
	Offset   int64  `json:"offset,omitempty" jsonschema:"first byte to read"`
	MaxBytes int    `json:"maxBytes,omitempty" jsonschema:"read at most this many bytes"`
}

type readOut struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Encoding is base64 when the bytes read are not UTF-8 text.
	Encoding  string `json:"encoding" jsonschema:"utf-8, or base64 when the file is not text"`
	Size      int64  `json:"size" jsonschema:"the whole file's size"`
	Truncated bool   `json:"truncated" jsonschema:"the file goes on after what was read: read on with offset"`
}

type writeIn struct {
	Sandbox  string `json:"sandbox"`
	Path     string `json:"path" jsonschema:"file path; relative paths are under /workspace"`
	Content  string `json:"content" jsonschema:"the file's whole new content"`
	Encoding string `json:"encoding,omitempty" jsonschema:"utf-8 (default) or base64 for binary content"`
	Mode     string `json:"mode,omitempty" jsonschema:"permission bits in octal, e.g. 0755 (default: the replaced file's, or 0644)"`
}

type fileOut struct {
	Path    string    `json:"path"`
	Type    string    `json:"type" jsonschema:"file, directory, symlink, fifo, socket or device"`
	Size    int64     `json:"size"`
	Mode    string    `json:"mode" jsonschema:"permission bits in octal"`
	ModTime time.Time `json:"modTime"`
	Target  string    `json:"target,omitempty" jsonschema:"a symlink's target"`
}

type listFilesIn struct {
	Sandbox       string `json:"sandbox"`
	Path          string `json:"path,omitempty" jsonschema:"directory; relative paths are under /workspace (default /workspace)"`
	Recursive     bool   `json:"recursive,omitempty" jsonschema:"descend into subdirectories"`
	IncludeHidden bool   `json:"includeHidden,omitempty" jsonschema:"include names starting with a dot"`
}

type listFilesOut struct {
	Entries   []fileOut `json:"entries"`
	Truncated bool      `json:"truncated" jsonschema:"there were more than 1000 entries; list a subdirectory"`
}

func fileOf(f *client.FileInfo) fileOut {
	return fileOut{Path: f.Path, Type: f.Type, Size: f.Size, Mode: modeOctal(f.Mode),
		ModTime: f.ModTime, Target: f.Target}
}

// modeOctal is the permission bits of m in octal, as ls -l's numbers.
func modeOctal(m fs.FileMode) string {
	const digits = "01234567"
	p := uint32(m.Perm())
	return string([]byte{'0', digits[p>>6&7], digits[p>>3&7], digits[p&7]})
}

func (b *berth) addFileTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", Annotations: readOnly,
		Description: "Read a file from a sandbox (at most maxBytes from offset). Text comes as UTF-8; other bytes as base64.",
		InputSchema: schemaFor[readIn](func(p map[string]*jsonschema.Schema) {
			p["path"].MinLength = jsonschema.Ptr(1)
			p["offset"].Minimum = jsonschema.Ptr(0.0)
			bounded(p["maxBytes"], 1, maxMaxBytes, defaultMaxBytes)
		}),
	}, b.readFile)
	mcp.AddTool(s, &mcp.Tool{Name: "write_file", Annotations: idempotent,
		Description: "Write a whole file in a sandbox, creating missing parent directories; readers never see it half written. Wakes a sleeping sandbox.",
		InputSchema: schemaFor[writeIn](func(p map[string]*jsonschema.Schema) {
			p["path"].MinLength = jsonschema.Ptr(1)
			p["encoding"].Enum = []any{"utf-8", "base64"}
			p["mode"].Pattern = `^0?[0-7]{3}$`
		}),
	}, b.writeFile)
	mcp.AddTool(s, &mcp.Tool{Name: "list_files", Annotations: readOnly,
		Description: "List a directory of a sandbox (recursively if asked), in name order.",
		InputSchema: schemaFor[listFilesIn](nil),
	}, b.listFiles)
}

func (b *berth) readFile(ctx context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, readOut, error) {
	if in.MaxBytes <= 0 {
		in.MaxBytes = defaultMaxBytes
	}
	p := absPath(in.Path)
	sb := b.c.Sandbox(in.Sandbox)
	out := readOut{Path: p, Encoding: "utf-8"}
	// One byte more than asked says whether the file goes on.
	rc, info, err := sb.ReadFileRange(ctx, p, in.Offset, int64(in.MaxBytes)+1)
	var ae *client.Error
	if errors.As(err, &ae) && ae.Status == http.StatusRequestedRangeNotSatisfiable {
		// The offset is at or past the end: nothing more to read.
		st, err := sb.Stat(ctx, p)
		if err != nil {
			return nil, readOut{}, describe(err)
		}
		out.Size = st.Size
		return nil, out, nil
	}
	if err != nil {
		return nil, readOut{}, describe(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, readOut{}, describe(err)
	}
	out.Size = info.Size
	if len(data) > in.MaxBytes {
		data, out.Truncated = data[:in.MaxBytes], true
	}
	if utf8.Valid(data) {
		out.Content = string(data)
	} else {
		out.Content, out.Encoding = base64.StdEncoding.EncodeToString(data), "base64"
	}
	return nil, out, nil
}

func (b *berth) writeFile(ctx context.Context, _ *mcp.CallToolRequest, in writeIn) (*mcp.CallToolResult, fileOut, error) {
	data := []byte(in.Content)
	if in.Encoding == "base64" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
			return nil, fileOut{}, validation("content is not base64: %v", err)
		}
	}
	var mode fs.FileMode
	for _, c := range strings.TrimPrefix(in.Mode, "0") {
		mode = mode<<3 | fs.FileMode(c-'0')
	}
	fi, err := b.c.Sandbox(in.Sandbox).WriteFile(ctx, absPath(in.Path), strings.NewReader(string(data)),
		client.WriteOptions{Mode: mode.Perm(), Mkdir: true})
	if err != nil {
		return nil, fileOut{}, describe(err)
	}
	return nil, fileOf(fi), nil
}

func (b *berth) listFiles(ctx context.Context, _ *mcp.CallToolRequest, in listFilesIn) (*mcp.CallToolResult, listFilesOut, error) {
	entries, err := b.c.Sandbox(in.Sandbox).List(ctx, absPath(in.Path), client.ListOptions{Recursive: in.Recursive, IncludeHidden: in.IncludeHidden})
	if err != nil {
		return nil, listFilesOut{}, describe(err)
	}
	out := listFilesOut{Entries: []fileOut{}}
	if len(entries) > maxListEntries {
		entries, out.Truncated = entries[:maxListEntries], true
	}
	for i := range entries {
		out.Entries = append(out.Entries, fileOf(&entries[i]))
	}
	return nil, out, nil
}
