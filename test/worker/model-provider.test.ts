/**
 * The model provider of `dev` and `worker --agent`, chosen from the environment (src/worker/model-provider.ts), and the
 * scripted demo model they fall back to (src/worker/demo-model.ts). Pure: no server, no network.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { DEMO_LABEL, demoGenerate, demoProvider } from '../../src/worker/demo-model.js';
import { ModelProviderConfigError, modelProviderChoice, modelProviderFromEnv } from '../../src/worker/model-provider.js';

const KEY = 'sk-planted-0123456789abcdef';

describe('the model provider from the environment', () => {
  it('none configured: the scripted demo model, labelled as scripted', async () => {
    const choice = modelProviderChoice({});
    assert.equal(choice.kind, 'demo');
    assert.match(choice.label, /^scripted demo model \(not an LLM; for a real one set OPENAI_API_KEY, ANTHROPIC_API_KEY or DURABLE_MCP_MODEL_BASE_URL\)$/);
    const { provider } = await modelProviderFromEnv({});
    assert.equal(provider.languageModel('anything').provider, 'durable-mcp-demo');
  });

  it('OPENAI_API_KEY: OpenAI; ANTHROPIC_API_KEY: Anthropic; a base URL wins over both; the label never holds the key', async () => {
    const openai = modelProviderChoice({ OPENAI_API_KEY: KEY });
    assert.deepEqual([openai.kind, openai.package], ['openai', '@ai-sdk/openai']);
    const anthropic = modelProviderChoice({ ANTHROPIC_API_KEY: KEY });
    assert.deepEqual([anthropic.kind, anthropic.package], ['anthropic', '@ai-sdk/anthropic']);
    assert.equal(modelProviderChoice({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY }).kind, 'openai');
    const local = modelProviderChoice({ OPENAI_API_KEY: KEY, DURABLE_MCP_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1/', DURABLE_MCP_MODEL_API_KEY: KEY });
    assert.deepEqual([local.kind, local.baseURL], ['openai-compatible', 'http://127.0.0.1:11434/v1']);
    assert.equal(local.label, 'OpenAI-compatible server at http://127.0.0.1:11434/v1, key from DURABLE_MCP_MODEL_API_KEY (not shown)');
    // A key in the base URL's query reaches the provider, never the label (the banner, the ready line).
    const queried = modelProviderChoice({ DURABLE_MCP_MODEL_BASE_URL: `https://llm.example/v1?api_key=${KEY}` });
    assert.equal(queried.baseURL, `https://llm.example/v1?api_key=${KEY}`);
    assert.equal(queried.label, 'OpenAI-compatible server at https://llm.example/v1 (query not shown)');
    for (const c of [openai, anthropic, local, queried]) assert.ok(!c.label.includes(KEY) && !c.label.includes('sk-'), c.label);
    // The packages load (devDependencies here) and make providers whose models are the real ones.
    assert.equal((await modelProviderFromEnv({ OPENAI_API_KEY: KEY })).provider.languageModel('gpt-4o-mini').provider, 'openai.responses');
    assert.equal((await modelProviderFromEnv({ ANTHROPIC_API_KEY: KEY })).provider.languageModel('claude-x').provider, 'anthropic.messages');
    const compatible = await modelProviderFromEnv({ DURABLE_MCP_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1' });
    assert.equal(compatible.provider.languageModel('llama3').provider, 'openai-compatible.chat');
  });

  it('DURABLE_MCP_MODEL_PROVIDER chooses explicitly, even the demo model with keys set', () => {
    assert.equal(modelProviderChoice({ DURABLE_MCP_MODEL_PROVIDER: 'demo', OPENAI_API_KEY: KEY }).kind, 'demo');
    assert.equal(modelProviderChoice({ DURABLE_MCP_MODEL_PROVIDER: 'anthropic', OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY }).kind, 'anthropic');
    assert.match(modelProviderChoice({ DURABLE_MCP_MODEL_PROVIDER: 'openai', OPENAI_API_KEY: KEY }).label, /DURABLE_MCP_MODEL_PROVIDER=openai/);
  });

  it('a setting that cannot work is refused, naming the variable and the problem (never echoing a key)', () => {
    const refused = (env: NodeJS.ProcessEnv, message: RegExp) =>
      assert.throws(
        () => modelProviderChoice(env),
        (err: Error) => err instanceof ModelProviderConfigError && message.test(err.message) && !err.message.includes(KEY),
      );
    refused({ DURABLE_MCP_MODEL_PROVIDER: 'gpt' }, /DURABLE_MCP_MODEL_PROVIDER must be one of openai, anthropic, openai-compatible, demo, got "gpt"/);
    refused({ DURABLE_MCP_MODEL_PROVIDER: 'openai' }, /DURABLE_MCP_MODEL_PROVIDER=openai needs OPENAI_API_KEY/);
    refused({ DURABLE_MCP_MODEL_PROVIDER: 'anthropic', OPENAI_API_KEY: KEY }, /needs ANTHROPIC_API_KEY/);
    refused({ DURABLE_MCP_MODEL_PROVIDER: 'openai-compatible' }, /needs DURABLE_MCP_MODEL_BASE_URL/);
    refused({ DURABLE_MCP_MODEL_BASE_URL: 'localhost:11434' }, /DURABLE_MCP_MODEL_BASE_URL must be an http\(s\) URL, got a localhost: URL/);
    refused(
      { DURABLE_MCP_MODEL_BASE_URL: 'not a url' },
      /DURABLE_MCP_MODEL_BASE_URL must be an http\(s\) URL, got 9 characters that are not a URL \(not shown/,
    );
    // A key pasted into the wrong variable is not printed back.
    refused({ DURABLE_MCP_MODEL_BASE_URL: KEY }, /must be an http\(s\) URL, got \d+ characters that are not a URL/);
    refused({ DURABLE_MCP_MODEL_BASE_URL: `https://user:${KEY}@llm.example/v1` }, /must not hold credentials: put the key in DURABLE_MCP_MODEL_API_KEY/);
  });
});

const call = (prompt: LanguageModelV4CallOptions['prompt'], tools: string[] = ['demo_book_table', 'demo_add']): LanguageModelV4CallOptions => ({
  prompt,
  tools: tools.map((name) => ({ type: 'function', name, inputSchema: { type: 'object' } })),
});

describe('the scripted demo model', () => {
  it("plans a call of the demo server's add with the prompt's two numbers, then says what it returned, labelled as scripted", () => {
    const first = demoGenerate(call([{ role: 'user', content: [{ type: 'text', text: 'Add 2 and 40' }] }]));
    assert.deepEqual(first.content, [{ type: 'tool-call', toolCallId: 'demo-add-1', toolName: 'demo_add', input: '{"a":2,"b":40}' }]);
    assert.equal(first.finishReason.unified, 'tool-calls');
    const second = demoGenerate(
      call([
        { role: 'user', content: [{ type: 'text', text: 'Add 2 and 40' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'demo-add-1', toolName: 'demo_add', input: { a: 2, b: 40 } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'demo-add-1', toolName: 'demo_add', output: { type: 'text', value: '{"sum":42}' } }] },
      ]),
    );
    assert.deepEqual(second.content, [{ type: 'text', text: `${DEMO_LABEL} I called demo_add with {"a":2,"b":40}; it returned {"sum":42}.` }]);
    assert.equal(second.finishReason.unified, 'stop');
  });

  it('a declined approval (error text) reaches its answer; with no add tool it says so; the same prompt gets the same answer', () => {
    const declined = demoGenerate(
      call([
        { role: 'user', content: [{ type: 'text', text: 'Add 1.5 and -3' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'demo-add-1', toolName: 'demo_add', input: { a: 1.5, b: -3 } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'demo-add-1', toolName: 'demo_add', output: { type: 'error-text', value: 'declined' } }] },
      ]),
    );
    assert.deepEqual(declined.content, [{ type: 'text', text: `${DEMO_LABEL} I called demo_add with {"a":1.5,"b":-3}, but got no result: declined` }]);
    const none = demoGenerate(call([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], ['fx_echo']));
    assert.match((none.content[0] as { text: string }).text, /^\[scripted demo model\] I only know how to add two numbers .*: fx_echo\.$/);
    const prompt = call([{ role: 'user', content: [{ type: 'text', text: 'Add 7 and 8' }] }]);
    assert.deepEqual(demoGenerate(prompt), demoGenerate(prompt));
    assert.equal((demoGenerate(prompt).content[0] as { input: string }).input, '{"a":7,"b":8}');
  });

  it('is a ProviderV4 for any model id, with no embedding or image models', () => {
    const p = demoProvider();
    assert.equal(p.languageModel('gpt-4o-mini').modelId, 'gpt-4o-mini');
    assert.throws(() => p.embeddingModel('x'), /no embedding model/);
  });
});
