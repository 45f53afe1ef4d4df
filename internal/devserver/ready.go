package devserver

import (
	"context"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// frontendReady reports whether the frontend at addr answers the calls
// client.Dial makes (GetSystemInfo) and knows namespace. The dev server
// accepts connections before its frontend is healthy and answers
// "Frontend is not healthy yet" for a while, so a listening port alone is
// not ready: a client dialling then fails.
func frontendReady(ctx context.Context, addr, namespace string) bool {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return false
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	svc := workflowservice.NewWorkflowServiceClient(conn)
	if _, err := svc.GetSystemInfo(ctx, &workflowservice.GetSystemInfoRequest{}); err != nil {
		return false
	}
	_, err = svc.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
	return err == nil
}
