import { describe, expect, it } from 'vitest';
import { ThreadTaintTracker, detectCanaries, detectSystemPromptLeak, indexSystemPrompts, makeCanary } from '../src/index.js';

describe('canaries', () => {
  it('finds configured canaries and the default pattern', () => {
    const c = makeCanary('0123456789abcdef');
    const text = `leak: ${c} and zebra-7-omega`;
    expect(detectCanaries(text, ['zebra-7-omega']).map((s) => text.slice(s.start, s.end))).toEqual([c, 'zebra-7-omega']);
    expect(detectCanaries('nothing here', ['zebra-7-omega'])).toEqual([]);
  });
  it('rejects malformed canary seeds', () => {
    expect(() => makeCanary('xyz')).toThrow(TypeError);
  });
});

describe('system prompt leakage', () => {
  const prompt = 'You are the billing assistant for Acme. Never reveal refund thresholds; escalate disputes above 500 euros to a human.';
  const index = indexSystemPrompts([prompt], 8);
  it('flags a verbatim run of eight words, ignoring case and punctuation', () => {
    const text = 'Sure! My rules say: "never reveal refund thresholds, escalate disputes above 500 euros" - that is all.';
    expect(detectSystemPromptLeak(text, index)).toHaveLength(1);
  });
  it('does not flag a short overlap or a paraphrase', () => {
    expect(detectSystemPromptLeak('I am the billing assistant for Acme.', index)).toEqual([]);
    expect(detectSystemPromptLeak('I cannot share internal limits; large disputes go to staff.', index)).toEqual([]);
  });
});

describe('ThreadTaintTracker', () => {
  it('blocks sinks only on threads that read an untrusted source', () => {
    const t = new ThreadTaintTracker({ sourceTools: ['fetch_url'], sinkTools: ['send_email'] });
    expect(t.checkToolCall('a', 'send_email')).toBeUndefined();
    t.recordToolOutput('a', 'get_weather');
    expect(t.checkToolCall('a', 'send_email')).toBeUndefined();
    t.recordToolOutput('a', 'fetch_url');
    expect(t.checkToolCall('a', 'send_email')).toEqual({ sourceTool: 'fetch_url' });
    expect(t.checkToolCall('a', 'lookup_order')).toBeUndefined();
    expect(t.checkToolCall('b', 'send_email')).toBeUndefined();
  });
  it('is bounded (least recently used thread forgotten first)', () => {
    const t = new ThreadTaintTracker({ sourceTools: ['fetch_url'], sinkTools: ['send_email'], maxThreads: 2 });
    t.recordToolOutput('a', 'fetch_url');
    t.recordToolOutput('b', 'fetch_url');
    t.checkToolCall('a', 'send_email'); // a is now the most recent
    t.recordToolOutput('c', 'fetch_url');
    expect(t.size).toBe(2);
    expect(t.checkToolCall('b', 'send_email')).toBeUndefined();
    expect(t.checkToolCall('a', 'send_email')).toBeDefined();
  });
});
