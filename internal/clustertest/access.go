// How clients reach the cluster: addresses, certificates, env, scripts, a Temporal client.

package clustertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/temporalconn"
)

// Frontends is TEMPORAL_ADDRESS for the whole cluster.
func (c *Cluster) Frontends() string {
	var a []string
	for _, ip := range NodeIPs {
		a = append(a, c.Frontend(ip))
	}
	return strings.Join(a, ",")
}

// Frontend is the frontend address of the node on ip.
func (c *Cluster) Frontend(ip string) string {
	return net.JoinHostPort(ip, strconv.Itoa(7233+c.Offset))
}

// Certs is the path of a file certs.sh made.
func (c *Cluster) Certs(name string) string { return filepath.Join(c.Dir, "certs", name) }

// ClientEnv is how a client holding role's certificate reaches Temporal.
func (c *Cluster) ClientEnv(role string) []string {
	return []string{
		"TEMPORAL_ADDRESS=" + c.Frontends(),
		"TEMPORAL_TLS_CERT=" + c.Certs(role+".pem"), "TEMPORAL_TLS_KEY=" + c.Certs(role+".key"),
		"TEMPORAL_TLS_CA=" + c.Certs("ca.pem"), "TEMPORAL_TLS_SERVER_NAME=temporal",
	}
}

// PGEnv is how deploy/temporal's scripts reach PostgreSQL.
func (c *Cluster) PGEnv() []string {
	return []string{
		"POSTGRES_ADDR=127.0.0.1:" + strconv.Itoa(c.PGPort), "POSTGRES_PASSWORD=" + c.PGPassword,
		"TEMPORAL_SQL_TOOL=" + filepath.Join(c.Tools, "temporal-sql-tool"),
	}
}

// Script runs one of deploy/temporal's scripts.
func (c *Cluster) Script(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Root, "deploy", "temporal", name), args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// Dial is a Temporal client of the whole cluster, dialled as Berth dials
// (internal/temporalconn), with the admin certificate.
func (c *Cluster) Dial(ctx context.Context) (client.Client, error) {
	cfg := config.Config{TemporalAddress: c.Frontends(), Namespace: "default", TemporalTLS: config.TemporalTLS{
		CertFile: c.Certs("admin.pem"), KeyFile: c.Certs("admin.key"), CAFile: c.Certs("ca.pem"), ServerName: "temporal"}}
	opts, dial, err := temporalconn.Options(cfg)
	if err != nil {
		return nil, err
	}
	opts.ConnectionOptions.DialOptions = dial
	return client.DialContext(ctx, opts)
}
