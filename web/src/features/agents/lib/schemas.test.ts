import { describe, expect, it } from 'vitest';
import { createAgentDefaults, createAgentSchema } from './schemas';

function messages(values: Partial<typeof createAgentDefaults>) {
  const result = createAgentSchema.safeParse({ ...createAgentDefaults, ...values });
  return result.success ? {} : Object.fromEntries(result.error.issues.map((i) => [i.path.join('.'), i.message]));
}

describe('createAgentSchema (spec §5 "Create agent")', () => {
  it('gives the spec messages for an empty form', () => {
    expect(messages({})).toEqual({
      name: 'Name must be at least 2 characters',
      description: 'Description must be at least 10 characters',
      category: 'Category is required',
    });
  });

  it('checks the minimum lengths exactly', () => {
    expect(messages({ name: 'A', description: '123456789', category: 'x' })).toEqual({
      name: 'Name must be at least 2 characters',
      description: 'Description must be at least 10 characters',
    });
    expect(messages({ name: 'AB', description: '1234567890', category: 'x' })).toEqual({});
  });

  it('treats a blank category as missing', () => {
    expect(messages({ name: 'AB', description: '1234567890', category: '   ' })).toEqual({
      category: 'Category is required',
    });
  });

  it('defaults to the Robot icon, Orange and private', () => {
    expect(createAgentDefaults).toMatchObject({ iconName: 'ri-robot-line', iconColor: '#FF3E00', isPublic: false });
  });
});
