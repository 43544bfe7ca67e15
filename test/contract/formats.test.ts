import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatCheck } from '../../src/contract/formats.js';

/** The verdicts of one format on some values (the messages are pinned in content.test.ts). */
function verdicts(format: string, values: string[]): boolean[] {
  const check = formatCheck(format);
  assert.ok(check, `format ${format} is checked`);
  return values.map((v) => check.test(v));
}

describe('string formats (formats.ts)', () => {
  it('knows exactly email, uri, date and date-time', () => {
    for (const f of ['email', 'uri', 'date', 'date-time']) assert.ok(formatCheck(f));
    for (const f of ['hostname', 'ipv4', 'toString', '__proto__', 'constructor', 42, undefined]) assert.equal(formatCheck(f), undefined);
  });
  it('email: dot-atom local part, a domain of at least two labels', () => {
    assert.deepEqual(verdicts('email', ['first.last+tag@sub.example.org', 'nope', 'a@b', 'a..b@c.de', 'a@b@c.de']), [true, false, false, false, false]);
  });
  it('uri: RFC 3986, a scheme required, IP literals checked', () => {
    assert.deepEqual(
      verdicts('uri', [
        'mailto:ada@example.com',
        'example.com/path',
        'https://exa mple.com',
        'http://[::1]:8080/',
        'http://[1::2::3]/',
        'http://[::ffff:1.2.3.4]/',
      ]),
      [true, false, false, true, false, true],
    );
  });
  it('date: YYYY-MM-DD on the calendar', () => {
    const dates = ['1990-12-31', '2024-02-29', '2023-02-29', '1900-02-29', '2000-02-29', '31/12/1990'];
    assert.deepEqual(verdicts('date', dates), [true, true, false, false, true, false]);
  });
  it('date-time: RFC 3339 with a zone; a leap second only at 23:59 UTC', () => {
    assert.deepEqual(
      verdicts('date-time', [
        '2025-01-31T23:59:60Z',
        '2025-01-31T09:30:00',
        '2025-01-31T24:00:00Z',
        '2025-01-31T22:59:60-01:00',
        '2025-01-31T23:59:60+01:00',
        '2025-01-31 09:30:00+0100',
      ]),
      [true, false, false, true, false, true],
    );
  });
});
