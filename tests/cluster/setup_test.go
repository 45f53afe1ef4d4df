package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/workflows/contract"
	"go.temporal.io/sdk/client"
)

// psql runs one query against Temporal's database as the temporal role.
func (c *cluster) psql(t *testing.T, db, query string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(c.PGBin, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(c.PGPort),
		"-U", "temporal", "-d", db, "-tAq", "-c", query)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+c.PGPassword)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "psql %q: %s", query, out)
	return strings.TrimSpace(string(out))
}

// adminClient dials the whole cluster the way berth does, with the admin
// certificate.
func (c *cluster) adminClient(t *testing.T) client.Client {
	t.Helper()
	cl, err := c.Dial(context.Background())
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// TestClusterSetup: what install left behind is what the README says:
// three nodes in one membership ring through the database, 512 history
// shards, SQL visibility schema, the namespace with its retention and
// Berth's search attributes.
func TestClusterSetup(t *testing.T) {
	c := need(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	require.Eventually(t, func() bool {
		return c.psql(t, "temporal", "select count(distinct rpc_address) from cluster_membership where record_expiry > now() and role = 1") == "3"
	}, 60*time.Second, time.Second, "three frontends in cluster_membership")
	require.Eventually(t, func() bool {
		return c.psql(t, "temporal", "select count(*) from shards") == "512"
	}, 60*time.Second, time.Second, "512 history shards")
	require.NotEmpty(t, c.psql(t, "temporal_visibility", "select curr_version from schema_version"))

	cl := c.adminClient(t)
	ns, err := cl.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
	require.NoError(t, err)
	require.Equal(t, 72*time.Hour, ns.Config.WorkflowExecutionRetentionTtl.AsDuration(), "retention set by namespace.sh")
	sas, err := cl.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	require.NoError(t, err)
	for _, n := range contract.SearchAttributeNames {
		require.Contains(t, sas.CustomAttributes, n, "search attribute %s registered (namespace.sh must list contract.SearchAttributeNames)", n)
	}
	// The cluster's own view of its members: every node serves every role.
	info, err := cl.WorkflowService().GetClusterInfo(ctx, &workflowservice.GetClusterInfoRequest{})
	require.NoError(t, err)
	require.EqualValues(t, 512, info.HistoryShardCount)
}

// TestWorkerRefusesBadTLSFiles: berth worker stops at once with a clear
// message when its Temporal certificate files are wrong, instead of
// retrying a handshake that cannot succeed.
func TestWorkerRefusesBadTLSFiles(t *testing.T) {
	c := need(t)
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"key without certificate", []string{"TEMPORAL_TLS_CERT=", "TEMPORAL_TLS_KEY=" + c.Certs("worker.key")}, "TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not"},
		{"unreadable certificate", []string{"TEMPORAL_TLS_CERT=" + c.Certs("nope.pem")}, "TEMPORAL_TLS_CERT: open"},
		{"key of another certificate", []string{"TEMPORAL_TLS_KEY=" + c.Certs("gateway.key")}, "private key does not match public key"},
		{"CA file that is no certificate", []string{"TEMPORAL_TLS_CA=" + c.Certs("worker.key")}, "holds no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(c.Bin, "worker")
			cmd.Env = append(append(append(os.Environ(), "BERTH_SECRET=x", "BERTH_DATA_DIR="+t.TempDir()), c.ClientEnv("worker")...), tc.env...)
			out, err := cmd.CombinedOutput()
			require.Error(t, err)
			require.Contains(t, string(out), tc.want)
		})
	}
}
