package imagetest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Registry is a real registry (Debian's docker-registry, the CNCF
// distribution registry) on a loopback port, with TLS from a test CA and
// htpasswd auth, for tests of images pulled by workers.
type Registry struct {
	Host       string // 127.0.0.1:PORT
	User, Pass string
	dir        string
	cmd        *exec.Cmd
	log        *os.File
	config     string
}

// StartRegistry starts a registry whose single user is user:pass.
func StartRegistry(user, pass string) (*Registry, error) {
	if _, err := exec.LookPath("docker-registry"); err != nil {
		return nil, fmt.Errorf("the registry tests need Debian's docker-registry package: %w", err)
	}
	dir, err := os.MkdirTemp("", "berth-registry-")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &Registry{Host: "127.0.0.1:" + strconv.Itoa(port), User: user, Pass: pass, dir: dir}
	if err := writeTLS(dir); err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.DefaultCost)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(user+":"+string(hash)+"\n"), 0o600); err != nil {
		return nil, err
	}
	r.config = filepath.Join(dir, "config.yml")
	cfg := fmt.Sprintf(`version: 0.1
log: {level: info}
storage:
  filesystem: {rootdirectory: %s}
  delete: {enabled: true}
http:
  addr: %s
  tls: {certificate: %s, key: %s}
auth:
  htpasswd: {realm: berth-test, path: %s}
`, filepath.Join(dir, "data"), r.Host, filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "htpasswd"))
	if err := os.WriteFile(r.config, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	return r, r.Start()
}

// Start (re)starts the registry on its address, with its data.
func (r *Registry) Start() error {
	log, err := os.OpenFile(filepath.Join(r.dir, "registry.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	r.log = log
	r.cmd = exec.Command("docker-registry", "serve", r.config)
	r.cmd.Stdout, r.cmd.Stderr = log, log
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := r.cmd.Start(); err != nil {
		return err
	}
	go r.cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", r.Host, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("docker-registry did not listen on %s: %s", r.Host, r.Log())
}

// Stop ends the registry process (its data stays).
func (r *Registry) Stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		for i := 0; i < 100; i++ {
			if c, err := net.DialTimeout("tcp", r.Host, 50*time.Millisecond); err != nil {
				break
			} else {
				c.Close()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if r.log != nil {
		r.log.Close()
	}
}

// Close stops the registry and removes its data.
func (r *Registry) Close() {
	r.Stop()
	os.RemoveAll(r.dir)
}

// Log is the registry's log (its access log included).
func (r *Registry) Log() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "registry.log"))
	return string(b)
}

// AuthFile writes a Docker config.json holding creds (host -> user:pass)
// and returns its path.
func AuthFile(dir string, creds map[string][2]string) (string, error) {
	auths := map[string]map[string]string{}
	for host, c := range creds {
		auths[host] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(c[0] + ":" + c[1]))}
	}
	b, err := json.Marshal(map[string]any{"auths": auths})
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "config.json")
	return p, os.WriteFile(p, b, 0o600)
}

// DockerConfig is a Docker config directory holding the registry's
// credentials, for the docker CLI (DOCKER_CONFIG), never the host's own.
func (r *Registry) DockerConfig() (string, error) {
	cfgDir := filepath.Join(r.dir, "docker-config")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		return "", err
	}
	_, err := AuthFile(cfgDir, map[string][2]string{r.Host: {r.User, r.Pass}})
	return cfgDir, err
}

// Push tags a local image as repo:tag on the registry, pushes it with the
// registry's credentials (a Docker config of its own, not the host's) and
// returns the pushed manifest digest (repo@sha256:…).
func (r *Registry) Push(ctx context.Context, local, repoTag string) (string, error) {
	cfgDir, err := r.DockerConfig()
	if err != nil {
		return "", err
	}
	ref := r.Host + "/" + repoTag
	docker := func(args ...string) (string, error) {
		c := exec.CommandContext(ctx, "docker", args...)
		c.Env = append(os.Environ(), "DOCKER_CONFIG="+cfgDir)
		out, err := c.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("docker %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	if _, err := docker("tag", local, ref); err != nil {
		return "", err
	}
	out, err := docker("push", ref)
	if err != nil {
		return "", err
	}
	_, _ = docker("rmi", ref) // untag: the host must not find it by the tag
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "digest: sha256:"); i >= 0 {
			d := strings.Fields(line[i+len("digest: "):])[0]
			name, _, _ := strings.Cut(ref, ":"+lastTag(ref))
			return name + "@" + d, nil
		}
	}
	return "", fmt.Errorf("docker push %s printed no digest: %s", ref, out)
}

func lastTag(ref string) string { return ref[strings.LastIndex(ref, ":")+1:] }

// BuildDistinct builds an image FROM the NoWorkspace shape holding
// /version = version and padMiB MiB of random bytes in /pad (a layer no
// other image shares, so a pull really downloads it), tagged tag.
func BuildDistinct(ctx context.Context, tag, version string, padMiB int) error {
	dir, err := os.MkdirTemp("", "berth-distinct-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	pad := make([]byte, padMiB<<20)
	rand.Read(pad)
	if err := os.WriteFile(filepath.Join(dir, "pad"), pad, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "version"), []byte(version+"\n"), 0o644); err != nil {
		return err
	}
	df := "FROM " + Tag(NoWorkspace) + "\nCOPY pad /pad\nCOPY version /version\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(df), 0o644); err != nil {
		return err
	}
	c := exec.CommandContext(ctx, "docker", "build", "-q", "--label", "io.berth.test=image-registry", "-t", tag, dir)
	c.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("docker build %s: %v: %s", tag, err, out)
	}
	return nil
}

// RemoveImage removes an image and every tag and digest naming it from the
// default daemon, so that the next use pulls it.
func RemoveImage(ctx context.Context, ref string) {
	out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "-f", "{{.Id}}", ref).Output()
	if err != nil {
		return
	}
	_ = exec.CommandContext(ctx, "docker", "rmi", "-f", strings.TrimSpace(string(out))).Run()
}

// writeTLS writes a test CA's certificate for 127.0.0.1 (cert.pem,
// key.pem).
func writeTLS(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "berth test registry"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	var cert, k bytes.Buffer
	pem.Encode(&cert, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	pem.Encode(&k, &pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), cert.Bytes(), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "key.pem"), k.Bytes(), 0o600)
}
