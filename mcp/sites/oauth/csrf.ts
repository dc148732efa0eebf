import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a consent form stays valid. */
const FORM_TTL_MS = 10 * 60_000;

/**
 * Signs consent forms. The hidden `csrf` field is an HMAC over the signed-in user, every
 * parameter of the authorization request and the time the form was shown, under a key
 * that never leaves the process. Another site cannot forge it (it never sees the key), and
 * a form shown to one user for one client cannot be replayed for another. The key is per
 * process: a restart (or another instance) simply asks the approver to reload the form.
 */
export function createFormSigner(key: Buffer = randomBytes(32), now: () => Date = () => new Date()) {
  const mac = (parts: readonly string[], issued: string) =>
    createHmac('sha256', key).update(JSON.stringify([...parts, issued])).digest('base64url');
  return {
    sign(parts: readonly string[]): string {
      const issued = String(now().getTime());
      return `${issued}.${mac(parts, issued)}`;
    },
    verify(token: string, parts: readonly string[]): boolean {
      const [issued, sig] = token.split('.');
      if (!issued || !sig || !/^\d+$/.test(issued)) return false;
      const age = now().getTime() - Number(issued);
      if (age < 0 || age > FORM_TTL_MS) return false;
      const expected = Buffer.from(mac(parts, issued));
      const given = Buffer.from(sig);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
export type FormSigner = ReturnType<typeof createFormSigner>;
