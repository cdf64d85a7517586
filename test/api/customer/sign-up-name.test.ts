import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../support/harness.js';
import { PRELAUNCH_CODES, reservedPhone } from '../../support/otp-sign-up.js';
import { NOT_ONE_LINE_TEXTS, UNPRINTABLE_TEXTS } from '../../support/unprintable-text.js';

/**
 * The name a traveller gives when verify-otp creates their account is read by others (support's
 * tickets, a company's loyalty accounts) and becomes their passenger record's: one line with no
 * control or bidirectional-override character, which would make one name read as another. A refused
 * name is 400 VALIDATION_FAILED naming it, before the code is checked: no account, the code unspent.
 */

describe('verify-otp: the name of a new account', () => {
  const app = useTestApp({ ...PRELAUNCH_CODES, SITE_MODE: 'coming_soon' });
  const verify = (json: Record<string, unknown>) =>
    app.request('/api/auth/customer/verify-otp', { method: 'POST', json });

  it('with a control or bidirectional-override character, a line break or a tab is refused and creates nothing', async () => {
    const phone = reservedPhone();
    const sent = await app.request('/api/auth/customer/send-otp', { method: 'POST', json: { phone } });
    expect(sent.status, sent.text).toBe(200);
    const code: string = sent.body.otpCode;
    const rows = async () => ({
      users: await app.db.query('select id from users where phone = $1', [phone]),
      challenges: await app.db.query('select * from otp_challenges where phone = $1 order by id', [phone]),
    });
    const before = await rows();
    for (const [what, name] of Object.entries({ ...UNPRINTABLE_TEXTS, ...NOT_ONE_LINE_TEXTS })) {
      const refused = await verify({ phone, code, name });
      expect([refused.status, refused.body.errorCode], what).toEqual([400, 'VALIDATION_FAILED']);
      expect(refused.body.details.issues, what).toContainEqual(
        expect.objectContaining({ path: 'body.name' }),
      );
    }
    expect(await rows()).toEqual(before);

    const verified = await verify({ phone, code, name: '  Lina Haddad ' });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data).toMatchObject({ isNewUser: true, user: { phone, name: 'Lina Haddad' } });
  });

  it('with no letter (direction marks, zero-width spaces, tatweel or vowel marks alone) is refused and creates nothing', async () => {
    const phone = reservedPhone();
    const sent = await app.request('/api/auth/customer/send-otp', { method: 'POST', json: { phone } });
    expect(sent.status, sent.text).toBe(200);
    const code: string = sent.body.otpCode;
    const rows = async () => ({
      users: await app.db.query('select id from users where phone = $1', [phone]),
      challenges: await app.db.query('select * from otp_challenges where phone = $1 order by id', [phone]),
    });
    const before = await rows();
    for (const name of [
      '\u200F',
      '\u200B\u200B',
      '\u0640\u0640',
      '\u064E\u0651',
      '\u200F\u0640\u064E \u200B',
      '\uFE70',
    ]) {
      const refused = await verify({ phone, code, name });
      expect([refused.status, refused.body.errorCode], JSON.stringify(name)).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(refused.body.details.issues, JSON.stringify(name)).toContainEqual(
        expect.objectContaining({ path: 'body.name' }),
      );
    }
    expect(await rows()).toEqual(before);

    const verified = await verify({ phone, code, name: '\u200Fسَارَة' });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data).toMatchObject({ isNewUser: true, user: { phone, name: '\u200Fسَارَة' } });
  });
});
