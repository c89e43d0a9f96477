import { describe, expect, it } from 'vitest';
import { createGuardrailEngine } from '../src/index.js';
import { toolCall } from './helpers.js';

const ARGS = {
  to: 'ana.garcia@example.com',
  subject: 'Your case',
  body: 'Card 4242 4242 4242 4242, mail ana.garcia@example.com, call +1 415 555 0142.',
};

describe('pii.addressing_fields: an address the tool needs is not redacted', () => {
  it('keeps the e-mail address in `to` and still redacts PII elsewhere in the same call', async () => {
    const engine = createGuardrailEngine({ policy: { pii: { addressing_fields: { send_customer_email: ['to'] } } } });
    const res = await engine.validate(toolCall('send_customer_email', ARGS));
    expect(res.decision).toBe('MODIFY');
    const args = JSON.parse((res.modified_payload as { function: { arguments: string } }).function.arguments) as typeof ARGS;
    expect(args.to).toBe('ana.garcia@example.com');
    expect(args.body).not.toContain('ana.garcia@example.com');
    expect(args.body).not.toContain('4242 4242');
    expect(res.findings?.some((f) => f.path === '/function/arguments/to')).toBe(false);
  });

  it('applies only to the named tool and argument, and only to addressing types', async () => {
    const engine = createGuardrailEngine({ policy: { pii: { addressing_fields: { send_customer_email: ['to'] } } } });
    const other = await engine.validate(toolCall('post_note', { to: 'ana.garcia@example.com' }));
    expect(JSON.parse((other.modified_payload as { function: { arguments: string } }).function.arguments).to).not.toContain('@');
    const card = await engine.validate(toolCall('send_customer_email', { to: '4242 4242 4242 4242', subject: 's', body: 'b' }));
    expect(card.decision).toBe('MODIFY');
    expect(JSON.parse((card.modified_payload as { function: { arguments: string } }).function.arguments).to).not.toContain('4242 4242');
    // Without the policy entry, the default redacts the address (the tool's schema then decides).
    const plain = await createGuardrailEngine().validate(toolCall('send_customer_email', ARGS));
    expect(JSON.parse((plain.modified_payload as { function: { arguments: string } }).function.arguments).to).not.toBe(ARGS.to);
  });

  it('refuses a malformed addressing_fields entry with its path', () => {
    expect(() =>
      createGuardrailEngine({ policy: { pii: { addressing_fields: { send_customer_email: 'to' as unknown as string[] } } } }),
    ).toThrow(/policy\.pii\.addressing_fields\.send_customer_email/);
    expect(() => createGuardrailEngine({ policy: { pii: { addressing_fields: { send_customer_email: [''] } } } })).toThrow(
      /addressing_fields/,
    );
  });
});
