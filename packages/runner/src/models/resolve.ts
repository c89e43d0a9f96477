import { BatchTraceProcessor, addTraceProcessor, setTraceProcessors } from '@openai/agents-core';
import type { ModelProvider } from '@openai/agents-core';
import { OpenAIProvider, OpenAITracingExporter } from '@openai/agents-openai';
import OpenAI from 'openai';
import { tracedFetch } from '@baton/tracing';
import { ModelConfigurationError } from './errors.js';
import { DEFAULT_SCENARIO, OFFLINE_MODEL_LABEL, OfflineModelProvider, createOfflineModelProvider } from './offline-model.js';

/** Options for {@link resolveModelProvider}. */
export interface ResolveModelProviderOptions {
  /** Environment to read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Scenario file for the offline model (used only when no OpenAI key or base URL is set). */
  scenarioFile?: string;
  /**
   * `fetch` for the OpenAI client (e.g. to capture HTTP bodies); the global fetch otherwise. It is
   * wrapped so every model request carries `traceparent` / `tracestate` of the runner's `chat` span.
   */
  fetch?: typeof fetch;
  /**
   * Leave the Agents SDK's trace processors alone. By default the SDK's exporter to OpenAI is
   * removed (processors reset to none) unless `BATON_OPENAI_TRACING=1`; install Baton's
   * OpenTelemetry bridge after this call.
   */
  keepTraceProcessors?: boolean;
}

/** The chosen provider and how to describe it in every output. */
export interface ResolvedModelProvider {
  provider: ModelProvider;
  /** `openai`, `openai-compatible (<base url>)` or `offline model`. */
  label: string;
  /** Which OpenAI API the provider speaks, or `offline`. */
  api: 'responses' | 'chat' | 'offline';
}

function chooseApi(env: NodeJS.ProcessEnv, fallback: 'responses' | 'chat'): 'responses' | 'chat' {
  const value = env.BATON_OPENAI_API?.trim();
  if (!value) return fallback;
  if (value === 'responses' || value === 'chat') return value;
  throw new ModelConfigurationError(`BATON_OPENAI_API must be 'responses' or 'chat', got '${value}'`);
}

function configureSdkTracing(env: NodeJS.ProcessEnv, apiKey: string | undefined, keep: boolean): void {
  if (env.BATON_OPENAI_TRACING === '1') {
    if (apiKey) addTraceProcessor(new BatchTraceProcessor(new OpenAITracingExporter({ apiKey })));
    return;
  }
  // Importing `@openai/agents` installs an exporter that uploads traces to OpenAI; drop it.
  if (!keep) setTraceProcessors([]);
}

/**
 * Chooses the model from the environment (DESIGN.md decision 8):
 * `OPENAI_BASE_URL` → an OpenAI-compatible server (Chat Completions unless
 * `BATON_OPENAI_API=responses`); `OPENAI_API_KEY` alone → OpenAI's Responses API; neither → the
 * deterministic offline model.
 */
export async function resolveModelProvider(options: ResolveModelProviderOptions = {}): Promise<ResolvedModelProvider> {
  const env = options.env ?? process.env;
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  configureSdkTracing(env, apiKey, options.keepTraceProcessors === true);
  if (baseURL) {
    let parsed: URL;
    try {
      parsed = new URL(baseURL);
    } catch (err) {
      throw new ModelConfigurationError(`OPENAI_BASE_URL is not a valid URL: '${baseURL}'`, { cause: err });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ModelConfigurationError(`OPENAI_BASE_URL must be http(s), got '${parsed.protocol}'`);
    }
    const api = chooseApi(env, 'chat');
    // Many compatible servers need no key, but the client insists on one.
    const client = new OpenAI({ apiKey: apiKey ?? 'not-needed', baseURL, fetch: tracedFetch(options.fetch ?? globalThis.fetch) });
    const provider = new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' });
    return { provider, label: `openai-compatible (${baseURL})`, api };
  }
  if (apiKey) {
    const api = chooseApi(env, 'responses');
    const client = new OpenAI({ apiKey, fetch: tracedFetch(options.fetch ?? globalThis.fetch) });
    return { provider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }), label: 'openai', api };
  }
  const provider = options.scenarioFile
    ? await createOfflineModelProvider({ scenario: options.scenarioFile })
    : new OfflineModelProvider(DEFAULT_SCENARIO);
  return { provider, label: OFFLINE_MODEL_LABEL, api: 'offline' };
}
