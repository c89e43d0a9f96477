/**
 * The guardrail policy: what each detector's finding means at each boundary. Validated with zod;
 * every field has a safe default, so `{}` (or no policy file) is the default policy.
 */
import { z } from 'zod';
import { PII_TYPES } from '../detectors/pii.js';

const allowBlock = z.enum(['ALLOW', 'BLOCK']);
const allowModifyBlock = z.enum(['ALLOW', 'MODIFY', 'BLOCK']);
const modifyBlock = z.enum(['MODIFY', 'BLOCK']);

const toolName = z.string().min(1).max(256);
/** A top-level tool-call argument name. */
const argumentName = z.string().min(1).max(256);

/** PII types an addressing argument may carry (the address the tool needs to do its job). */
export const ADDRESSING_PII_TYPES = ['EMAIL_ADDRESS', 'PHONE_NUMBER'] as const;

export const PolicySchema = z
  .object({
    /** Policy format version. */
    version: z.literal(1).default(1),
    injection: z
      .object({
        /** Calibrated score at or above which a text is an injection, for every action type; default: the model's per-action thresholds. */
        threshold: z.number().gt(0).lt(1).optional(),
        /** Per-action-type thresholds; each overrides `threshold` for its action type. */
        thresholds: z
          .object({
            agent_input: z.number().gt(0).lt(1).optional(),
            tool_output: z.number().gt(0).lt(1).optional(),
            agent_handoff: z.number().gt(0).lt(1).optional(),
            tool_call: z.number().gt(0).lt(1).optional(),
            agent_response: z.number().gt(0).lt(1).optional(),
          })
          .strict()
          .optional(),
        /** Score from which a text is in the grey band (capped at the BLOCK threshold); default: the model's per-action grey thresholds. */
        grey_threshold: z.number().gt(0).lt(1).optional(),
        /** The grey band: ALLOW with a low-severity PROMPT_INJECTION_SUSPECTED finding, or BLOCK. */
        grey_band: allowBlock.default('ALLOW'),
        agent_input: allowBlock.default('BLOCK'),
        /** MODIFY removes the sentences found to carry the injection (BLOCK when none can be located). */
        tool_output: allowModifyBlock.default('BLOCK'),
        agent_handoff: allowBlock.default('BLOCK'),
        /** Arguments are usually user content being passed along; checked only when BLOCK. */
        tool_call: allowBlock.default('ALLOW'),
        agent_response: allowBlock.default('ALLOW'),
      })
      .strict()
      .default({
        grey_band: 'ALLOW',
        agent_input: 'BLOCK',
        tool_output: 'BLOCK',
        agent_handoff: 'BLOCK',
        tool_call: 'ALLOW',
        agent_response: 'ALLOW',
      }),
    pii: z
      .object({
        /** Which structured PII types count. */
        types: z.array(z.enum(PII_TYPES)).default([...PII_TYPES]),
        tool_call: allowModifyBlock.default('MODIFY'),
        agent_handoff: allowModifyBlock.default('MODIFY'),
        agent_response: allowModifyBlock.default('ALLOW'),
        agent_input: allowModifyBlock.default('ALLOW'),
        tool_output: allowModifyBlock.default('ALLOW'),
        /**
         * Tool-call arguments that carry the address the tool needs, by tool name (e.g.
         * `{ send_customer_email: [to] }`): e-mail addresses and phone numbers in them are allowed,
         * so redaction never breaks a `format: email` field; other PII there is still redacted.
         */
        addressing_fields: z.record(toolName, z.array(argumentName).max(64)).default({}),
      })
      .strict()
      .default({
        types: [...PII_TYPES],
        tool_call: 'MODIFY',
        agent_handoff: 'MODIFY',
        agent_response: 'ALLOW',
        agent_input: 'ALLOW',
        tool_output: 'ALLOW',
        addressing_fields: {},
      }),
    secrets: z
      .object({
        /** Rule ids to turn off (see README for the list). */
        disabled_rules: z.array(z.string().min(1)).default([]),
        /**
         * A credential-like value found only under a credential name (`api_key = "…"`, no provider's
         * token shape): MODIFY redacts it on every action type; BLOCK treats it like any secret.
         */
        name_keyed: modifyBlock.default('MODIFY'),
        agent_input: modifyBlock.default('BLOCK'),
        tool_call: modifyBlock.default('BLOCK'),
        tool_output: modifyBlock.default('MODIFY'),
        agent_response: modifyBlock.default('BLOCK'),
        agent_handoff: modifyBlock.default('BLOCK'),
      })
      .strict()
      .default({
        disabled_rules: [],
        name_keyed: 'MODIFY',
        agent_input: 'BLOCK',
        tool_call: 'BLOCK',
        tool_output: 'MODIFY',
        agent_response: 'BLOCK',
        agent_handoff: 'BLOCK',
      }),
    exfiltration: z
      .object({
        /** Hosts (and their subdomains) URLs may carry data to. */
        allowed_domains: z
          .array(
            z
              .string()
              .min(1)
              .regex(/^[a-z0-9.-]+$/i, 'must be a host name like docs.example.com'),
          )
          .default([]),
        /** Images, iframes, CSS url() and script URLs in an AGENT_RESPONSE. */
        images: modifyBlock.default('BLOCK'),
        /** Data-carrying links in an AGENT_RESPONSE (MODIFY removes the URL). */
        links: allowModifyBlock.default('MODIFY'),
      })
      .strict()
      .default({ allowed_domains: [], images: 'BLOCK', links: 'MODIFY' }),
    leakage: z
      .object({
        /** Canary tokens that must never leave (in responses, tool calls and handoffs). */
        canaries: z.array(z.string().min(8)).default([]),
        /** System prompts whose verbatim fragments must not appear in responses or tool calls. */
        system_prompts: z.array(z.string().min(1)).default([]),
        /** Consecutive words of a system prompt that count as a leak. */
        min_words: z.number().int().min(4).max(64).default(8),
      })
      .strict()
      .default({ canaries: [], system_prompts: [], min_words: 8 }),
    tool_policy: z
      .object({
        /** Tools whose output is untrusted content. */
        source_tools: z
          .array(toolName)
          .default(['fetch_url', 'http_get', 'browse', 'web_search', 'read_email', 'read_inbox', 'read_file_from_url']),
        /** Tools that must not run on a thread that has read untrusted content. */
        sink_tools: z.array(toolName).default(['send_email', 'http_post', 'http_request', 'post_message', 'upload_file', 'transfer_funds']),
        /** Most threads whose taint is remembered (LRU). */
        max_threads: z.number().int().min(1).max(10_000_000).default(100_000),
      })
      .strict()
      .default({
        source_tools: ['fetch_url', 'http_get', 'browse', 'web_search', 'read_email', 'read_inbox', 'read_file_from_url'],
        sink_tools: ['send_email', 'http_post', 'http_request', 'post_message', 'upload_file', 'transfer_funds'],
        max_threads: 100_000,
      }),
  })
  .strict();

/** A validated policy with every default filled in. */
export type Policy = z.output<typeof PolicySchema>;
/** A policy as written in a file: every field optional. */
export type PolicyInput = z.input<typeof PolicySchema>;

/** The policy used when none is given (DESIGN.md's default policy). */
export const DEFAULT_POLICY: Policy = PolicySchema.parse({});
