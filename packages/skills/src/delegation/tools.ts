import { DELEGATE_TASK_NAME, YIELD_CONTROL_NAME, YIELD_STATUSES } from '@baton/manifest';

/** JSON Schema of `delegate_task` arguments: the seed's parameters plus success criteria and approval. */
export function delegateTaskParameters(subagentTypes?: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      subagent_type: {
        type: 'string',
        ...(subagentTypes && subagentTypes.length > 0 ? { enum: [...subagentTypes] } : {}),
        description: 'Which skill or agent to delegate to.',
      },
      instruction_set: { type: 'string', description: 'System-level prompt for the subagent: everything it needs to know.' },
      input_data: {
        type: 'object',
        description:
          'The data the subagent works on. It sees nothing else: pass relevant history here explicitly. Large data or binary: {"$ref": "file:relative/path"}.',
      },
      max_iterations: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
      termination_trigger: { type: 'string', description: 'String or condition to signal completion.' },
      success_criteria: {
        type: 'array',
        description:
          'Machine-verifiable criteria: "Word count > 500", "Tests pass", "JSON is schema-valid", "Output has field x", or {type: json_schema|command|regex|word_count|length|files_changed, ...}.',
        items: {},
      },
      requires_approval: { type: 'boolean', description: 'Must be true for network_outbound, file_delete or financial_tx work.' },
    },
    required: ['subagent_type', 'instruction_set', 'input_data'],
    additionalProperties: false,
  };
}

/** JSON Schema of `yield_control` arguments (the ResponsePackage). */
export const YIELD_CONTROL_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: [...YIELD_STATUSES] },
    output_payload: { type: 'object' },
    log_summary: { type: 'string' },
    error_report: {
      type: ['object', 'null'],
      properties: { code: { type: 'string', pattern: '^ERR_[A-Z0-9_]+$' }, message: { type: 'string' }, details: { type: 'object' } },
      required: ['code', 'message'],
    },
  },
  required: ['status', 'output_payload'],
  additionalProperties: false,
};

export const DELEGATE_TASK_DESCRIPTION =
  'Spawns a specialized subagent to execute a scoped objective. Returns its ResponsePackage (status, output_payload, error_report) as JSON.';
export const YIELD_CONTROL_DESCRIPTION = 'Terminates the subagent session and returns data to the parent agent.';
export { DELEGATE_TASK_NAME, YIELD_CONTROL_NAME };
