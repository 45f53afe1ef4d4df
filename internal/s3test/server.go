// Package s3test runs a real S3 server (versitygw with a posix backend in
// a temp dir) for tests, so the S3 blob store is exercised over the wire
// rather than against a mock.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/berthdev/berth/internal/childproc"
)

// Server is a running versitygw instance.
type Server struct {
	Endpoint  string // http://127.0.0.1:<port>
	Bucket    string // created by Start
	URL       string // s3://<Bucket>/berth, what blobstore.Open takes
	AccessKey string
	SecretKey string
	PID       int
}

// Start launches versitygw on a random 127.0.0.1 port, creates a bucket
// and points the process environment (via t.Setenv, so it is restored
// afterwards) at it: static credentials, BERTH_S3_ENDPOINT, AWS_REGION,
// and no shared config files or instance metadata that could leak in from
// the host. The server is stopped in t.Cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := findBinary(t)
	s := &Server{AccessKey: "berth-test-" + randHex(4), SecretKey: randHex(20)}

	root := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		// Another process may take the port between probe and bind; retry.
		port, err := freePort()
		if err != nil {
			t.Fatalf("s3test: pick port: %v", err)
		}
		if lastErr = s.launch(t, bin, root, port); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("s3test: start versitygw (%s): %v", bin, lastErr)
	}

	t.Setenv("AWS_ACCESS_KEY_ID", s.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.SecretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(root, "no-aws-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(root, "no-aws-credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("BERTH_S3_ENDPOINT", s.Endpoint)
	t.Setenv("BERTH_S3_PATH_STYLE", "")

	s.Bucket = s.CreateBucket(t, "berth-"+randHex(4))
	s.URL = "s3://" + s.Bucket + "/berth"
	return s
}

// launch starts the process and waits until it answers HTTP.
func (s *Server) launch(t testing.TB, bin, root string, port int) error {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	data := filepath.Join(root, fmt.Sprintf("gw-%d", port))
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(root, fmt.Sprintf("versitygw-%d.log", port))
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--port", addr, "--quiet", "posix", data)
	// Credentials by environment keep them out of `ps` output.
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.SecretKey)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := childproc.Start(cmd); err != nil { // no orphan if the test binary dies
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("exited early: %v\n%s", err, out)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("not listening on %s after 30s", addr)
		}
	}
	s.Endpoint = "http://" + addr
	s.PID = cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(s.PID, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(s.PID, syscall.SIGKILL)
			<-exited
		}
	})
	return nil
}

// Client returns an S3 client for the server with its root credentials,
// independent of the process environment.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}

// CreateBucket creates another bucket and returns its name.
func (s *Server) CreateBucket(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name = strings.ToLower(name)
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("s3test: create bucket %s: %v", name, err)
	}
	return name
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
