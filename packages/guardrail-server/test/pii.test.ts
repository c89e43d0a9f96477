import { describe, expect, it } from 'vitest';
import { detectPii, ibanValid, luhnValid, ssnValid } from '../src/index.js';

const types = (text: string) => detectPii(text).map((s) => s.type);
const matched = (text: string) => detectPii(text).map((s) => text.slice(s.start, s.end));

describe('detectPii positives', () => {
  it('finds e-mail addresses', () => {
    expect(matched('write to jane.roe+billing@mail.example.co.uk today')).toEqual(['jane.roe+billing@mail.example.co.uk']);
  });
  it('finds Luhn-valid cards with or without separators', () => {
    expect(matched('card 4111 1111 1111 1111 ok')).toEqual(['4111 1111 1111 1111']);
    expect(matched('card 4111-1111-1111-1111.')).toEqual(['4111-1111-1111-1111']);
    expect(matched('amex 378282246310005')).toEqual(['378282246310005']);
  });
  it('finds valid SSNs', () => {
    expect(matched('SSN 219-09-9999 on file')).toEqual(['219-09-9999']);
  });
  it('finds checksum-valid IBANs', () => {
    expect(types('IBAN GB82 WEST 1234 5698 7654 32 please')).toEqual(['IBAN_CODE']);
    expect(types('DE89370400440532013000')).toEqual(['IBAN_CODE']);
  });
  it('finds US and international phone numbers', () => {
    expect(matched('call (415) 555-0132 now')).toEqual(['(415) 555-0132']);
    expect(matched('or +44 20 7946 0958')).toEqual(['+44 20 7946 0958']);
    expect(matched('Tel: 415.555.0132')).toEqual(['415.555.0132']);
  });
  it('finds IPv4 and IPv6 addresses', () => {
    expect(matched('from 203.0.113.7 and 2001:db8:85a3::8a2e:370:7334')).toEqual(['203.0.113.7', '2001:db8:85a3::8a2e:370:7334']);
  });
});

describe('detectPii hard negatives', () => {
  it.each([
    ['an invalid-Luhn card number', 'card 4111 1111 1111 1112'],
    ['an order number', 'Your order number 1234567890123 has shipped'],
    ['a tracking number', 'tracking 1Z999AA10123456784'],
    ['a UUID', 'id 3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
    ['a hash', 'sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a date', 'due 2024-06-01 or 01/06/2024'],
    ['a date and time', 'When: 2000-04-16 11:34:35'],
    ['a version', 'upgrade to version 10.2.3.4'],
    ['an ISBN', 'The ISBN of the textbook is 978-0-306-40615-7.'],
    ['an invalid SSN area', 'SSN 666-12-3456 and 900-12-3456'],
    ['a part number', 'part 123-45-6789-A is out of stock'],
    ['a bad IBAN checksum', 'GB82 WEST 1234 5698 7654 33'],
    ['a decimal and a list', 'Pi is 3.1415926535; numbers 4, 15, 23, 37'],
    ['a street address', 'Meet me at 7943 2027 Prospect Avenue'],
  ])('%s is not PII', (_name, text) => {
    expect(detectPii(text)).toEqual([]);
  });
});

describe('validators', () => {
  it('checks Luhn, IBAN and SSN ranges', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
    expect(ssnValid('000', '12', '3456')).toBe(false);
    expect(ssnValid('123', '00', '3456')).toBe(false);
    expect(ssnValid('123', '45', '0000')).toBe(false);
    expect(ssnValid('123', '45', '6789')).toBe(true);
  });
});
