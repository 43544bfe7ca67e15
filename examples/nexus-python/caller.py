"""A Python workflow that calls durable-mcp's MCP tools through Nexus (docs/nexus.md).

The workflow `CallTool` runs in its own namespace (here `caller-py`) and calls the operation `callTool` of the
Nexus service `durable-mcp` on an endpoint that targets durable-mcp's namespace and task queue. A tool that asks a
person waits in durable-mcp's inbox; the person answers there; the result comes back as a dict:
{"output": str, "isError": bool, "metadata"?: {...}}. A declined approval is such a result (isError true,
metadata.approval "declined"), not an exception.

  python3 caller.py worker                 # runs the workflow's worker (Ctrl-C stops it)
  python3 caller.py call fx echo '{"text": "hi"}'   # starts CallTool and prints its result

Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233), CALLER_NAMESPACE (default caller-py),
CALLER_TASK_QUEUE (default nexus-python). The endpoint is named "durable-mcp". Needs `temporalio` (tested with 1.35.0).
"""

import asyncio
import json
import os
import sys
import uuid
from datetime import timedelta

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

ADDRESS = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
NAMESPACE = os.environ.get("CALLER_NAMESPACE", "caller-py")
# The Nexus endpoint's name: the workflow code's own constant (workflow code reads no environment).
ENDPOINT = "durable-mcp"
TASK_QUEUE = os.environ.get("CALLER_TASK_QUEUE", "nexus-python")


@workflow.defn
class CallTool:
    """Calls one MCP tool through durable-mcp; `call` is the callTool input (server, tool, arguments, options)."""

    @workflow.run
    async def run(self, call: dict) -> dict:
        client = workflow.create_nexus_client(service="durable-mcp", endpoint=ENDPOINT)
        # At least as long as a question may wait (durable-mcp's elicitation.expiresIn, 24 h by default) and the tool runs.
        return await client.execute_operation("callTool", call, schedule_to_close_timeout=timedelta(hours=25))


async def run_worker() -> None:
    client = await Client.connect(ADDRESS, namespace=NAMESPACE)
    async with Worker(client, task_queue=TASK_QUEUE, workflows=[CallTool]):
        print(f"READY caller worker: namespace {NAMESPACE}, task queue {TASK_QUEUE}, endpoint {ENDPOINT}", flush=True)
        await asyncio.Event().wait()


async def call(server: str, tool: str, arguments: str) -> None:
    client = await Client.connect(ADDRESS, namespace=NAMESPACE)
    result = await client.execute_workflow(
        CallTool.run,
        {"server": server, "tool": tool, "arguments": json.loads(arguments)},
        id=f"call-{tool}-{uuid.uuid4().hex[:8]}",
        task_queue=TASK_QUEUE,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        asyncio.run(run_worker())
    elif sys.argv[1:2] == ["call"] and len(sys.argv) in (4, 5):
        asyncio.run(call(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) == 5 else "{}"))
        # The result is printed. Leave without the interpreter's teardown: the client's Rust threads can outlive it and
        # abort a short-lived process at exit ("Fatal Python error: PyGILState_Release", temporalio/sdk-python#300, open).
        sys.stdout.flush()
        os._exit(0)
    else:
        sys.exit(__doc__)
