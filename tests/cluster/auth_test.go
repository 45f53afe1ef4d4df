package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/clustertest"
	"github.com/berthdev/berth/workflows/contract"
)

// strangerCert is a client certificate from a CA the cluster never heard of.
func strangerCert(t *testing.T) tls.Certificate {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Stranger CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	// Named like Berth's own worker certificate: only the signature differs.
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{Organization: []string{"Berth"}, CommonName: "berth-worker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der, caDER}, PrivateKey: key}
}

func (c *cluster) caPool(t *testing.T) *x509.CertPool {
	pem, err := os.ReadFile(c.Certs("ca.pem"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	return pool
}

// sdkClient is a Temporal client straight to node 1's frontend; it dials
// lazily so that a refused connection shows up on the call.
func (c *cluster) sdkClient(t *testing.T, tc *tls.Config) client.Client {
	t.Helper()
	cl, err := client.NewLazyClient(client.Options{HostPort: c.Frontend(clustertest.NodeIPs[0]), Namespace: "default",
		ConnectionOptions: client.ConnectionOptions{TLS: tc}})
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// TestClusterRefusesClientsWithoutCertificate: without a certificate from
// the cluster's CA nobody can start, signal or query a Berth workflow, not
// over plaintext, not over TLS without a client certificate, not with a
// certificate from another CA; Berth's own certificate can.
func TestClusterRefusesClientsWithoutCertificate(t *testing.T) {
	c := need(t)
	ctx := context.Background()
	name := "auth-" + c.HostID
	_, _, err := c.clients()[0].Create(ctx, berth.CreateRequest{Name: name, InstanceType: "lite"})
	require.NoError(t, err)
	wid := contract.WorkflowID(name)
	intruder := contract.WorkflowID("intruder-" + c.HostID)

	for _, tc := range []struct {
		name string
		tls  *tls.Config
	}{
		{"plaintext", nil},
		{"TLS without a client certificate", &tls.Config{RootCAs: c.caPool(t), ServerName: "temporal"}},
		{"a certificate from another CA", &tls.Config{RootCAs: c.caPool(t), ServerName: "temporal", Certificates: []tls.Certificate{strangerCert(t)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := c.sdkClient(t, tc.tls)
			try := func(what string, f func(ctx context.Context) error) {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				err := f(ctx)
				require.Error(t, err, "%s succeeded with %s", what, tc.name)
				t.Logf("%s: %v", what, err)
			}
			try("start", func(ctx context.Context) error {
				_, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: intruder, TaskQueue: contract.SharedQueue}, contract.WorkflowType)
				return err
			})
			try("signal", func(ctx context.Context) error { return cl.SignalWorkflow(ctx, wid, "", "anything", nil) })
			try("query", func(ctx context.Context) error {
				_, err := cl.QueryWorkflow(ctx, wid, "", contract.QueryState)
				return err
			})
		})
	}

	// With a certificate the CA signed, the same calls reach the workflow:
	// the refusals above were the certificate, not the calls.
	pair, err := tls.LoadX509KeyPair(c.Certs("worker.pem"), c.Certs("worker.key"))
	require.NoError(t, err)
	ok := c.sdkClient(t, &tls.Config{RootCAs: c.caPool(t), ServerName: "temporal", Certificates: []tls.Certificate{pair}})
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = ok.QueryWorkflow(qctx, wid, "", contract.QueryState)
	require.NoError(t, err, "query with Berth's certificate")
	_, err = ok.DescribeWorkflowExecution(qctx, intruder, "")
	var nf *serviceerror.NotFound
	require.ErrorAs(t, err, &nf, "no intruder workflow was started")
	_, err = c.clients()[0].Destroy(ctx, name)
	require.NoError(t, err)
}
