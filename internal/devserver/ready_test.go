package devserver

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
)

// unhealthyFrontend is a fake for fault injection: a frontend that listens
// but answers as the dev server does while it comes up, until healthy is set.
type unhealthyFrontend struct {
	workflowservice.UnimplementedWorkflowServiceServer
	healthy atomic.Bool
}

func (f *unhealthyFrontend) GetSystemInfo(context.Context, *workflowservice.GetSystemInfoRequest) (*workflowservice.GetSystemInfoResponse, error) {
	if !f.healthy.Load() {
		return nil, serviceerror.NewUnavailable("Frontend is not healthy yet")
	}
	return &workflowservice.GetSystemInfoResponse{}, nil
}

func (f *unhealthyFrontend) DescribeNamespace(_ context.Context, r *workflowservice.DescribeNamespaceRequest) (*workflowservice.DescribeNamespaceResponse, error) {
	if r.Namespace != "default" {
		return nil, serviceerror.NewNamespaceNotFound(r.Namespace)
	}
	return &workflowservice.DescribeNamespaceResponse{}, nil
}

// A frontend that listens but is not healthy yet is not ready: Start
// returning then made the caller's client.Dial fail with "failed reaching
// server: Frontend is not healthy yet".
func TestFrontendNotReadyUntilHealthy_FakeFrontend(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &unhealthyFrontend{}
	g := grpc.NewServer()
	workflowservice.RegisterWorkflowServiceServer(g, f)
	go g.Serve(l)
	defer g.Stop()

	ctx := context.Background()
	if frontendReady(ctx, l.Addr().String(), "default") {
		t.Fatal("a frontend answering 'not healthy yet' counted as ready")
	}
	f.healthy.Store(true)
	if frontendReady(ctx, l.Addr().String(), "elsewhere") {
		t.Fatal("a frontend without the namespace counted as ready")
	}
	if !frontendReady(ctx, l.Addr().String(), "default") {
		t.Fatal("a healthy frontend with the namespace did not count as ready")
	}
}
