// A Go workflow that calls durable-mcp's MCP tools through Nexus (docs/nexus.md).
//
// The workflow CallTool runs in its own namespace (here caller-go) and calls the operation callTool of the Nexus
// service durable-mcp on the endpoint "durable-mcp", which targets durable-mcp's namespace and task queue. A tool that
// asks a person waits in durable-mcp's inbox; the person answers there; the result comes back as
// {"output": ..., "isError": ..., "metadata": ...}. A declined approval is such a result, not an error.
//
//	nexus-caller worker                          # runs the workflow's worker (Ctrl-C stops it)
//	nexus-caller call fx echo '{"text": "hi"}'   # starts CallTool and prints its result
//
// Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233), CALLER_NAMESPACE (default caller-go), CALLER_TASK_QUEUE
// (default nexus-go). Tested with go.temporal.io/sdk v1.51.0.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Endpoint is the Nexus endpoint's name; Service is durable-mcp's service.
const (
	Endpoint = "durable-mcp"
	Service  = "durable-mcp"
)

// ToolResult is what callTool returns (docs/nexus/callTool.output.schema.json).
type ToolResult struct {
	Output   string         `json:"output"`
	IsError  bool           `json:"isError"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// CallTool calls one MCP tool through durable-mcp; call is the callTool input (server, tool, arguments, options).
func CallTool(ctx workflow.Context, call map[string]any) (ToolResult, error) {
	c := workflow.NewNexusClient(Endpoint, Service)
	// At least as long as a question may wait (durable-mcp's elicitation.expiresIn, 24 h by default) and the tool runs.
	f := c.ExecuteOperation(ctx, "callTool", call, workflow.NexusOperationOptions{ScheduleToCloseTimeout: 25 * time.Hour})
	var out ToolResult
	err := f.Get(ctx, &out)
	return out, err
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "worker" && os.Args[1] != "call") || (os.Args[1] == "call" && len(os.Args) < 4) {
		fmt.Fprintln(os.Stderr, "usage: nexus-caller worker | nexus-caller call SERVER TOOL [ARGUMENTS_JSON]")
		os.Exit(2)
	}
	namespace := env("CALLER_NAMESPACE", "caller-go")
	taskQueue := env("CALLER_TASK_QUEUE", "nexus-go")
	c, err := client.Dial(client.Options{HostPort: env("TEMPORAL_ADDRESS", "127.0.0.1:7233"), Namespace: namespace})
	if err != nil {
		log.Fatalln("could not connect to Temporal:", err)
	}
	defer c.Close()
	if os.Args[1] == "worker" {
		w := worker.New(c, taskQueue, worker.Options{})
		w.RegisterWorkflow(CallTool)
		if err := w.Start(); err != nil {
			log.Fatalln("could not start the worker:", err)
		}
		fmt.Printf("READY caller worker: namespace %s, task queue %s, endpoint %s\n", namespace, taskQueue, Endpoint)
		<-worker.InterruptCh()
		w.Stop()
		return
	}
	args := map[string]any{}
	if len(os.Args) > 4 {
		if err := json.Unmarshal([]byte(os.Args[4]), &args); err != nil {
			log.Fatalln("ARGUMENTS_JSON:", err)
		}
	}
	call := map[string]any{"server": os.Args[2], "tool": os.Args[3], "arguments": args}
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: taskQueue}, CallTool, call)
	if err != nil {
		log.Fatalln("could not start CallTool:", err)
	}
	var result ToolResult
	if err := run.Get(context.Background(), &result); err != nil {
		log.Fatalln("CallTool failed:", err)
	}
	text, _ := json.Marshal(result)
	fmt.Println(string(text))
}
