import { describe, expect, it } from 'vitest';
import { loginSchema, MESSAGES, registerSchema } from './schemas';

function messagesFor(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  const out: Record<string, string[]> = {};
  for (const issue of result.error?.issues ?? []) {
    const key = issue.path.join('.');
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

describe('loginSchema', () => {
  it('accepts a valid e-mail and a 6-character password', () => {
    const result = loginSchema.safeParse({ email: 'ada@example.com', password: '123456' });
    expect(result.success).toBe(true);
  });

  it('rejects an invalid e-mail with the spec message', () => {
    const result = loginSchema.safeParse({ email: 'not-an-email', password: '123456' });
    expect(messagesFor(result)).toEqual({ email: ['Please enter a valid email address'] });
  });

  it('rejects an empty e-mail with the same message', () => {
    const result = loginSchema.safeParse({ email: '', password: '123456' });
    expect(messagesFor(result).email).toEqual([MESSAGES.email]);
  });

  it('rejects a password shorter than 6 characters', () => {
    const result = loginSchema.safeParse({ email: 'ada@example.com', password: '12345' });
    expect(messagesFor(result)).toEqual({ password: ['Password must be at least 6 characters'] });
  });
});

describe('registerSchema', () => {
  const valid = { username: 'ada', email: 'ada@example.com', password: 'secret1', confirmPassword: 'secret1' };

  it('accepts valid input', () => {
    expect(registerSchema.safeParse(valid).success).toBe(true);
  });

  it('requires a username of at least 3 characters', () => {
    const result = registerSchema.safeParse({ ...valid, username: 'ab' });
    expect(messagesFor(result)).toEqual({ username: ['Username must be at least 3 characters'] });
  });

  it('validates e-mail and password with the login messages', () => {
    const result = registerSchema.safeParse({ ...valid, email: 'x@', password: '123', confirmPassword: '123' });
    expect(messagesFor(result)).toEqual({
      email: ['Please enter a valid email address'],
      password: ['Password must be at least 6 characters'],
    });
  });

  it("reports 'Passwords do not match' on confirmPassword", () => {
    const result = registerSchema.safeParse({ ...valid, confirmPassword: 'secret2' });
    expect(messagesFor(result)).toEqual({ confirmPassword: ['Passwords do not match'] });
  });

  it('reports the mismatch even when another field is invalid', () => {
    const result = registerSchema.safeParse({ ...valid, username: 'a', confirmPassword: 'other12' });
    expect(messagesFor(result)).toEqual({
      username: ['Username must be at least 3 characters'],
      confirmPassword: ['Passwords do not match'],
    });
  });

  it('trims the e-mail', () => {
    const result = registerSchema.parse({ ...valid, email: '  ada@example.com ' });
    expect(result.email).toBe('ada@example.com');
  });
});
