import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents-core';
import { SpanKind, type Context } from '@opentelemetry/api';
import { runWithTraceContext } from '@baton/tracing';
import { endSpan, type RunTracing } from './tracing.js';

export interface CapturingModelOptions {
  base: Model;
  /** Called with every request exactly as the SDK hands it over, before the model sees it. */
  onRequest(request: ModelRequest): Promise<void>;
  /**
   * Racing input check: resolves true when the input may be used. Responses are held until it
   * resolves; false aborts the call and its output is discarded.
   */
  inputGate?: Promise<boolean>;
  /** Error to throw when the gate says no. */
  blockedError?: () => Error;
  /** Awaited before each streamed chunk is read from the model (backpressure from event listeners). */
  beforeChunk?: () => Promise<void>;
  tracing: RunTracing;
  parent: () => Context;
  modelName: string;
}

const never = new Promise<never>(() => undefined);

/**
 * A delegating Model: every request goes to a listener first (capture, audit, handoff-gate
 * proof), and in racing mode no response leaves it before the input check has allowed it.
 */
export class CapturingModel implements Model {
  constructor(private readonly options: CapturingModelOptions) {}

  get supportsPromptModelSelection(): boolean | undefined {
    return this.options.base.supportsPromptModelSelection;
  }

  private gateFailure(): Promise<never> | undefined {
    const { inputGate, blockedError } = this.options;
    if (!inputGate) return undefined;
    const failure = inputGate.then((ok) => {
      if (ok) return never;
      throw blockedError ? blockedError() : new Error('input blocked by guardrail');
    });
    failure.catch(() => undefined);
    return failure;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const scope = this.startChatSpan();
    try {
      await this.options.onRequest(request);
      // The model's HTTP client (a `tracedFetch`) sends this chat span's context.
      const call = runWithTraceContext(scope.context, () => this.options.base.getResponse(request));
      const failure = this.gateFailure();
      const response = failure ? await Promise.race([call, failure]) : await call;
      if (this.options.inputGate && !(await this.options.inputGate))
        throw this.options.blockedError?.() ?? new Error('input blocked by guardrail');
      if (response.responseId) scope.span.setAttribute('gen_ai.response.id', response.responseId);
      endSpan(scope.span);
      return response;
    } catch (error) {
      endSpan(scope.span, { code: 'MODEL_ERROR', message: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const scope = this.startChatSpan();
    let failure: { code: string; message: string } | undefined;
    let iterator: AsyncIterator<StreamEvent> | undefined;
    let done = false;
    try {
      await this.options.onRequest(request);
      if (this.options.inputGate && !(await this.options.inputGate))
        throw this.options.blockedError?.() ?? new Error('input blocked by guardrail');
      // Each step runs in the chat span's context, so the request the stream opens carries it.
      iterator = runWithTraceContext(scope.context, () => this.options.base.getStreamedResponse(request)[Symbol.asyncIterator]());
      for (;;) {
        await this.options.beforeChunk?.();
        const step = await runWithTraceContext(scope.context, () => (iterator as AsyncIterator<StreamEvent>).next());
        if (step.done) {
          done = true;
          break;
        }
        yield step.value;
      }
    } catch (error) {
      done = true;
      failure = { code: 'MODEL_ERROR', message: error instanceof Error ? error.message : String(error) };
      throw error;
    } finally {
      // The consumer stopped early: let the model close its stream.
      if (!done) await iterator?.return?.().catch(() => undefined);
      endSpan(scope.span, failure);
    }
  }

  private startChatSpan() {
    return this.options.tracing.start(
      `chat ${this.options.modelName}`,
      this.options.parent(),
      { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': this.options.modelName },
      SpanKind.CLIENT,
    );
  }
}
