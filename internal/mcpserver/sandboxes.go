package mcpserver

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/client"
)

// sandboxOut is a sandbox as the tools report it.
type sandboxOut struct {
	Name         string            `json:"name"`
	InstanceType string            `json:"instanceType"`
	Status       string            `json:"status" jsonschema:"created, starting, running, dozing (frozen in place; any call thaws it), stopping, stopped (asleep), destroying or destroyed"`
	SleepAfter   string            `json:"sleepAfter,omitempty" jsonschema:"idle time after which it sleeps (its /workspace is kept)"`
	KeepAlive    bool              `json:"keepAlive,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Host         string            `json:"host,omitempty"`
	CreatedAt    time.Time         `json:"createdAt"`
	UpdatedAt    time.Time         `json:"updatedAt"`
}

func sandboxOf(i *client.SandboxInfo) sandboxOut {
	if i == nil {
		return sandboxOut{}
	}
	o := sandboxOut{Name: i.Name, InstanceType: i.InstanceType, Status: i.Status, KeepAlive: i.KeepAlive,
		Env: i.Env, Host: i.Host, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt}
	if i.SleepAfter > 0 {
		o.SleepAfter = i.SleepAfter.String()
	}
	return o
}

type createIn struct {
	Name         string            `json:"name" jsonschema:"the sandbox's name"`
	InstanceType string            `json:"instanceType,omitempty" jsonschema:"size: lite, basic (default), standard-1 .. standard-4, or a custom type"`
	SleepAfter   string            `json:"sleepAfter,omitempty" jsonschema:"idle time before it sleeps, a Go duration such as 10m or 1h (default 10m)"`
	Env          map[string]string `json:"env,omitempty" jsonschema:"environment of every process in the sandbox"`
	Start        bool              `json:"start,omitempty" jsonschema:"boot it now instead of at the first command"`
}

type createOut struct {
	Sandbox sandboxOut `json:"sandbox"`
	Created bool       `json:"created" jsonschema:"false when an identical create had already claimed the name"`
}

type nameIn struct {
	Sandbox string `json:"sandbox"`
}

type listIn struct {
	Status string `json:"status,omitempty" jsonschema:"only sandboxes in this status"`
}

type listOut struct {
	Sandboxes []sandboxOut `json:"sandboxes"`
}

type sandboxResult struct {
	Sandbox sandboxOut `json:"sandbox"`
}

func (b *berth) addSandboxTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "create_sandbox", Annotations: idempotent,
		Description: "Claim a sandbox name (no container yet unless start is set; the first command boots it). " +
			"Creating again with the same settings is harmless; names are never reused once destroyed.",
		InputSchema: schemaFor[createIn](func(p map[string]*jsonschema.Schema) { nameSchema(p["name"]) }),
	}, b.create)
	mcp.AddTool(s, &mcp.Tool{Name: "list_sandboxes", Annotations: readOnly,
		Description: "List sandboxes with their status.",
		InputSchema: schemaFor[listIn](func(p map[string]*jsonschema.Schema) {
			p["status"].Enum = []any{"created", "starting", "running", "dozing", "stopping", "stopped", "destroying", "destroyed"}
		}),
	}, b.list)
	mcp.AddTool(s, &mcp.Tool{Name: "get_sandbox", Annotations: readOnly,
		Description: "Show one sandbox's state.", InputSchema: schemaFor[nameIn](nil),
	}, b.lifecycle((*client.Client).Get))
	mcp.AddTool(s, &mcp.Tool{Name: "start_sandbox", Annotations: idempotent,
		Description: "Boot a sandbox's container, restoring /workspace; returns once it runs.", InputSchema: schemaFor[nameIn](nil),
	}, b.lifecycle((*client.Client).Start))
	mcp.AddTool(s, &mcp.Tool{Name: "sleep_sandbox", Annotations: idempotent,
		Description: "Put a sandbox to sleep: /workspace is backed up and the container removed (processes end). " +
			"The next command wakes it with the same files.", InputSchema: schemaFor[nameIn](nil),
	}, b.lifecycle((*client.Client).Sleep))
	mcp.AddTool(s, &mcp.Tool{Name: "destroy_sandbox", Annotations: destructive,
		Description: "Destroy a sandbox for good: container, workspace and backups. Its name can never be used again.",
		InputSchema: schemaFor[nameIn](nil),
	}, b.lifecycle((*client.Client).Destroy))
}

func (b *berth) create(ctx context.Context, _ *mcp.CallToolRequest, in createIn) (*mcp.CallToolResult, createOut, error) {
	req := client.CreateRequest{Name: in.Name, InstanceType: in.InstanceType, Env: in.Env, Start: in.Start}
	if in.SleepAfter != "" {
		d, err := time.ParseDuration(in.SleepAfter)
		if err != nil || d <= 0 {
			return nil, createOut{}, validation("sleepAfter %q is not a positive duration such as 10m", in.SleepAfter)
		}
		req.SleepAfter = d
	}
	info, created, err := b.c.Create(ctx, req)
	if err != nil {
		return nil, createOut{}, describe(err)
	}
	return nil, createOut{Sandbox: sandboxOf(info), Created: created}, nil
}

func (b *berth) list(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
	infos, err := b.c.List(ctx, in.Status)
	if err != nil {
		return nil, listOut{}, describe(err)
	}
	out := listOut{Sandboxes: make([]sandboxOut, len(infos))}
	for i := range infos {
		out.Sandboxes[i] = sandboxOf(&infos[i])
	}
	return nil, out, nil
}

// lifecycle is a tool handler for a call that takes a sandbox name and
// answers its state.
func (b *berth) lifecycle(call func(*client.Client, context.Context, string) (*client.SandboxInfo, error)) mcp.ToolHandlerFor[nameIn, sandboxResult] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, sandboxResult, error) {
		info, err := call(b.c, ctx, in.Sandbox)
		if err != nil {
			return nil, sandboxResult{}, describe(err)
		}
		if info == nil { // the route answered without a body
			if info, err = b.c.Get(ctx, in.Sandbox); err != nil {
				return nil, sandboxResult{}, describe(err)
			}
		}
		return nil, sandboxResult{Sandbox: sandboxOf(info)}, nil
	}
}
