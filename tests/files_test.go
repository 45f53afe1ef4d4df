package tests

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// vmRSS reads a host process's resident set size in bytes.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS for %d", pid)
	return 0
}

// supervisorPID is the host pid of the sandbox container's PID 1.
func supervisorPID(t *testing.T, n string) int {
	t.Helper()
	cs := sandboxContainers(t, n)
	require.Len(t, cs, 1)
	info, err := stack.DockerAPI.ContainerInspect(context.Background(), cs[0].ID)
	require.NoError(t, err)
	return info.State.Pid
}

func TestFilesRoundTripAndWake(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "files")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	require.Equal(t, "created", stack.Status(t, n))

	// A write starts the sandbox.
	data := make([]byte, 5<<20+3)
	rand.Read(data)
	fi, err := sb.WriteFile(ctx, "/workspace/dir one/blob.bin", bytes.NewReader(data), client.WriteOptions{Mode: 0o600, Mkdir: true})
	require.NoError(t, err)
	require.Equal(t, "running", stack.Status(t, n))
	require.Equal(t, int64(len(data)), fi.Size)
	require.Equal(t, os.FileMode(0o600), fi.Mode)

	rc, info, err := sb.ReadFile(ctx, "/workspace/dir one/blob.bin")
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got), "byte-exact round trip")
	require.Equal(t, int64(len(data)), info.Size)
	require.Equal(t, "file", info.Type)

	rc, _, err = sb.ReadFileRange(ctx, "/workspace/dir one/blob.bin", 4096, 10)
	require.NoError(t, err)
	got, _ = io.ReadAll(rc)
	rc.Close()
	require.Equal(t, data[4096:4106], got)

	st, err := sb.Stat(ctx, "/workspace/dir one")
	require.NoError(t, err)
	require.True(t, st.IsDir())
	ok, err := sb.Exists(ctx, "/workspace/nope")
	require.NoError(t, err)
	require.False(t, ok)
	_, _, err = sb.ReadFile(ctx, "/workspace/nope")
	requireCode(t, err, 404, client.ErrFileNotFound)
	_, _, err = sb.ReadFile(ctx, "/workspace/../etc/passwd")
	requireCode(t, err, 400, client.ErrInvalidPath)

	require.NoError(t, sb.Mkdir(ctx, "/workspace/a/b"))
	_, err = sb.Move(ctx, "/workspace/dir one/blob.bin", "/workspace/a/b/moved.bin")
	require.NoError(t, err)
	// Moving across file systems (the /workspace volume to the image's /tmp) copies.
	_, err = sb.Move(ctx, "/workspace/a/b/moved.bin", "/tmp/moved.bin")
	require.NoError(t, err)
	out := run(t, ctx, sb, "sha256sum", "/tmp/moved.bin")
	sum := sha256.Sum256(data)
	require.Contains(t, string(out.Stdout), strings.ToLower(hexs(sum[:])))

	list, err := sb.List(ctx, "/workspace", client.ListOptions{Recursive: true})
	require.NoError(t, err)
	var paths []string
	for _, e := range list {
		paths = append(paths, e.Path)
	}
	require.Equal(t, []string{"/workspace/a", "/workspace/a/b", "/workspace/dir one"}, paths)
	err = sb.Remove(ctx, "/workspace/a", false)
	requireCode(t, err, 409, client.ErrNotEmpty)
	require.NoError(t, sb.Remove(ctx, "/workspace/a", true))

	// A file request wakes a stopped sandbox; the file survived the sleep.
	_, err = sb.WriteFile(ctx, "/workspace/keep.txt", strings.NewReader("kept"), client.WriteOptions{})
	require.NoError(t, err)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.WaitStatus(t, n, "stopped", time.Minute)
	rc, _, err = sb.ReadFile(ctx, "/workspace/keep.txt")
	require.NoError(t, err)
	got, _ = io.ReadAll(rc)
	rc.Close()
	require.Equal(t, "kept", string(got))
	require.Equal(t, "running", stack.Status(t, n))
}

func hexs(b []byte) string {
	const h = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, h[c>>4], h[c&15])
	}
	return string(out)
}

func TestArchiveTreeRoundTripAndEscapes(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "archive")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	run(t, ctx, sb, "sh", "-c", `mkdir -p /workspace/src/d/e && head -c 300000 /dev/urandom > /workspace/src/d/bin &&
		printf 'x' > /workspace/src/.hidden && chmod 750 /workspace/src/d/bin && ln -s d/bin /workspace/src/link &&
		ln /workspace/src/d/bin /workspace/src/hard`)

	rc, err := sb.DownloadArchive(ctx, "/workspace/src")
	require.NoError(t, err)
	tarball, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	st, err := sb.UploadArchive(ctx, "/workspace/copy", bytes.NewReader(tarball))
	require.NoError(t, err)
	require.Equal(t, 2, st.Files)
	require.Equal(t, 1, st.Symlinks)
	require.Equal(t, 1, st.Hardlinks)
	out := run(t, ctx, sb, "sh", "-c", `cd /workspace/src && find . | sort | while read f; do stat -c '%n %A %s %h' "$f"; done; md5sum d/bin; readlink link`)
	out2 := run(t, ctx, sb, "sh", "-c", `cd /workspace/copy && find . | sort | while read f; do stat -c '%n %A %s %h' "$f"; done; md5sum d/bin; readlink link`)
	require.Equal(t, string(out.Stdout), string(out2.Stdout))
	require.Contains(t, string(out.Stdout), "./d/bin -rwxr-x--- 300000 2")

	// Hostile archives: nothing lands outside the target.
	mk := func(entries ...tar.Header) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, h := range entries {
			h.Mode = 0o644
			body := ""
			if h.Typeflag == tar.TypeReg {
				body = "pwned"
				h.Size = 5
			}
			require.NoError(t, tw.WriteHeader(&h))
			io.WriteString(tw, body)
		}
		tw.Close()
		return buf.Bytes()
	}
	run(t, ctx, sb, "sh", "-c", "mkdir -p /workspace/outside /workspace/target && ln -s /workspace/outside /workspace/target/pre")
	for what, tb := range map[string][]byte{
		"dot-dot":          mk(tar.Header{Typeflag: tar.TypeReg, Name: "../outside/a"}),
		"absolute":         mk(tar.Header{Typeflag: tar.TypeReg, Name: "/workspace/outside/b"}),
		"symlink then via": mk(tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/workspace/outside"}, tar.Header{Typeflag: tar.TypeReg, Name: "l/c"}),
		"existing symlink": mk(tar.Header{Typeflag: tar.TypeReg, Name: "pre/d"}),
		"hardlink out":     mk(tar.Header{Typeflag: tar.TypeLink, Name: "h", Linkname: "../outside/x"}),
	} {
		_, err := sb.UploadArchive(ctx, "/workspace/target", bytes.NewReader(tb))
		requireCode(t, err, 400, client.ErrPathEscape)
		t.Log(what, "rejected:", err)
	}
	list, err := sb.List(ctx, "/workspace/outside", client.ListOptions{IncludeHidden: true})
	require.NoError(t, err)
	require.Empty(t, list, "something was written outside the target")
}

// A 1 GiB file up and down through the gateway: memory of the gateway and
// of the supervisor stays flat.
func TestFilesLargeFileFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1 GiB transfer")
	}
	ctx := testCtx(t, 10*time.Minute)
	n := name(t, "bigfile")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h", "instanceType": "basic"})
	_, err := sb.WriteFile(ctx, "/workspace/warm", strings.NewReader("x"), client.WriteOptions{})
	require.NoError(t, err)
	supPID, gwPID := supervisorPID(t, n), stack.GatewayPID()
	require.NotZero(t, gwPID)
	supBefore, gwBefore := vmRSS(t, supPID), vmRSS(t, gwPID)
	var supPeak, gwPeak int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(supPID) + "/status"); err == nil && len(b) > 0 {
				supPeak = max(supPeak, vmRSS(t, supPID))
			}
			gwPeak = max(gwPeak, vmRSS(t, gwPID))
		}
	}()

	const size = 1 << 30
	src := &patternReader{n: size}
	start := time.Now()
	fi, err := sb.WriteFile(ctx, "/workspace/big.bin", src, client.WriteOptions{Size: size})
	up := time.Since(start)
	require.NoError(t, err)
	require.Equal(t, int64(size), fi.Size)

	start = time.Now()
	rc, info, err := sb.ReadFile(ctx, "/workspace/big.bin")
	require.NoError(t, err)
	require.Equal(t, int64(size), info.Size)
	check := &patternReader{n: size}
	var got int64
	buf := make([]byte, 1<<20)
	want := make([]byte, 1<<20)
	for {
		k, err := rc.Read(buf)
		if k > 0 {
			io.ReadFull(check, want[:k])
			require.True(t, bytes.Equal(buf[:k], want[:k]), "content differs at %d", got)
			got += int64(k)
		}
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	rc.Close()
	down := time.Since(start)
	close(stop)
	<-sampled
	require.Equal(t, int64(size), got)
	mib := func(b int64) float64 { return float64(b) / (1 << 20) }
	t.Logf("1 GiB up %.1fs (%.0f MiB/s), down %.1fs (%.0f MiB/s)", up.Seconds(), 1024/up.Seconds(), down.Seconds(), 1024/down.Seconds())
	t.Logf("supervisor RSS %.1f MiB -> peak %.1f MiB; gateway RSS %.1f MiB -> peak %.1f MiB",
		mib(supBefore), mib(supPeak), mib(gwBefore), mib(gwPeak))
	require.Less(t, supPeak-supBefore, int64(64<<20), "supervisor memory grew")
	require.Less(t, gwPeak-gwBefore, int64(64<<20), "gateway memory grew")
}

// patternReader yields n bytes of a position-dependent pattern.
type patternReader struct{ n, off int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := int(min(int64(len(b)), p.n-p.off))
	for i := 0; i < k; i++ {
		o := p.off + int64(i)
		b[i] = byte(o*31 + o>>12)
	}
	p.off += int64(k)
	return k, nil
}
