/**
 * An agent whose server is behind OAuth (docs/oauth.md, docs/agents.md): the listing's local activity (Versions.agentFastPath)
 * finds the login missing and hands the listing to `mcpListTools`, which asks the sign-in and lists once a person signed in;
 * the agent then calls the tool as the activity (a server behind OAuth never runs a call inline). Real parts: oidc-provider
 * in front of the v2 SDK MCP server (test/fixtures/oauth-server.ts), a dev server, the inbox's callback, Chromium signing
 * in, and `mcpAgent` on a worker with DurableMcpPlugin and AiSdkPlugin (the scripted model).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import type { McpAgentResult } from '../../src/ai-sdk/index.js';
import { oauthServers, oauthSuite, oneLoginEach } from '../helpers/oauth.js';
import { startWorker, uniqueTaskQueue } from '../helpers/temporal.js';
import { agentWorkflowBundle } from './agent-bundle.js';
import { scriptedModel } from './scripted-model.js';

describe('mcpAgent on a server behind OAuth', () => {
  const servers = oneLoginEach('agent', ['first']);
  const suite = oauthSuite({ name: 'oauth-agent', mcpConfig: ({ fixture }) => oauthServers(fixture.mcp, Object.values(servers)) });

  it('the listing waits for the sign-in (the local activity hands it to mcpListTools), then the tool runs and the model reads it', async () => {
    const server = servers.first;
    const scripted = scriptedModel([{ tool: `${server}_echo`, input: { text: 'signed' } }, { text: (results) => `Result: ${results.join(' | ')}` }]);
    const taskQueue = uniqueTaskQueue('oauth-agent');
    const worker = await startWorker(suite.env, {
      taskQueue,
      encryption: suite.codec ?? false,
      mcpConfig: suite.mcpConfig,
      oauth: { redirectUrl: suite.redirectUrl },
      workflowBundle: await agentWorkflowBundle(),
      workerOptions: { plugins: [new AiSdkPlugin({ modelProvider: scripted.provider() })] },
    });
    await worker.runUntil(async () => {
      const handle = await suite.env.client.workflow.start('mcpAgent', {
        taskQueue,
        workflowId: `oauth-agent-${Date.now()}`,
        args: [{ prompt: 'echo', servers: [server], model: 'scripted', tools: [`${server}_echo`] }],
      });
      const request = await suite.pendingSignIn(server);
      assert.equal(request.kind, 'authorization');
      assert.equal(await suite.signIn(request.url!), 'Signed in');
      const result = (await handle.result()) as McpAgentResult;
      assert.equal(result.text, 'Result: echo: signed');
      const { events } = await handle.fetchHistory();
      const activities = events!.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType!.name!] : []));
      const localActivities = events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
      assert.equal(localActivities, 1, 'the listing tried inline first');
      assert.ok(activities.includes('listMcpTools'), `then listed as the activity, with the login: ${activities.join(', ')}`);
      assert.equal(activities.filter((a) => a === 'callMcpTool').length, 1, 'the call is the activity (OAuth: never inline)');
    });
  });
});
