import { Agent, Runner } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelConfigurationError } from '../../src/models/errors.js';
import { OfflineModelProvider } from '../../src/models/offline-model.js';
import { resolveModelProvider } from '../../src/models/resolve.js';
import { startScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';
import type { ScriptedOpenAIServer } from '../../src/testing/scripted-openai-server.js';

// Real servers, subprocess-free but SDK-heavy: generous for a loaded 2-core machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

describe('resolveModelProvider', () => {
  let server: ScriptedOpenAIServer;
  beforeAll(async () => {
    server = await startScriptedOpenAIServer({ script: () => ({ message: 'hello from the wire' }) });
  });
  afterAll(() => server.close());

  it('uses the offline model with neither key nor base URL', async () => {
    const r = await resolveModelProvider({ env: {} });
    expect(r.label).toBe('offline model');
    expect(r.api).toBe('offline');
    expect(r.provider).toBeInstanceOf(OfflineModelProvider);
  });

  it('uses OpenAI (Responses) with only OPENAI_API_KEY', async () => {
    const r = await resolveModelProvider({ env: { OPENAI_API_KEY: 'sk-test' } });
    expect(r).toMatchObject({ label: 'openai', api: 'responses' });
    expect(r.provider).toBeInstanceOf(OpenAIProvider);
  });

  it('talks Chat Completions to OPENAI_BASE_URL by default, through the injected fetch', async () => {
    const seen: string[] = [];
    const capturingFetch: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const r = await resolveModelProvider({ env: { OPENAI_BASE_URL: server.url }, fetch: capturingFetch });
    expect(r).toMatchObject({ label: `openai-compatible (${server.url})`, api: 'chat' });
    const model = await r.provider.getModel('local-model');
    const result = await new Runner({ tracingDisabled: true }).run(new Agent({ name: 'a', instructions: 'be brief', model }), 'hi');
    expect(result.finalOutput).toBe('hello from the wire');
    expect(seen).toEqual([`${server.url}/chat/completions`]);
    expect(server.requests.at(-1)!.body).toMatchObject({
      model: 'local-model',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
  });

  it('talks Responses to OPENAI_BASE_URL when BATON_OPENAI_API=responses', async () => {
    const r = await resolveModelProvider({ env: { OPENAI_BASE_URL: server.url, BATON_OPENAI_API: 'responses' } });
    expect(r.api).toBe('responses');
    const model = await r.provider.getModel('local-model');
    const result = await new Runner({ tracingDisabled: true }).run(new Agent({ name: 'a', instructions: 'x', model }), 'hi');
    expect(result.finalOutput).toBe('hello from the wire');
    expect(server.requests.at(-1)!.path).toBe('/v1/responses');
  });

  it('refuses a bad BATON_OPENAI_API or OPENAI_BASE_URL with a clear error', async () => {
    await expect(resolveModelProvider({ env: { OPENAI_API_KEY: 'k', BATON_OPENAI_API: 'assistants' } })).rejects.toThrow(
      ModelConfigurationError,
    );
    await expect(resolveModelProvider({ env: { OPENAI_BASE_URL: 'not a url' } })).rejects.toThrow(/OPENAI_BASE_URL is not a valid URL/);
    await expect(resolveModelProvider({ env: { OPENAI_BASE_URL: 'ftp://x' } })).rejects.toThrow(/must be http\(s\)/);
  });

  it('loads the scenario file for the offline model and reports its errors', async () => {
    await expect(resolveModelProvider({ env: {}, scenarioFile: '/nonexistent/x.scenario.yml' })).rejects.toThrow(
      /x\.scenario\.yml:1:1: cannot read/,
    );
  });
});
