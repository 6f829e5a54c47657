import { describe, expect, it } from 'vitest';
import { agentStatusColor, initialEditorStatus, initialsOf } from './status';

describe('agentStatusColor (spec §4)', () => {
  it('maps active green, inactive gray, pending yellow, anything else gray', () => {
    expect(agentStatusColor('active')).toBe('green');
    expect(agentStatusColor('inactive')).toBe('gray');
    expect(agentStatusColor('pending')).toBe('yellow');
    expect(agentStatusColor('archived')).toBe('gray');
    expect(agentStatusColor(undefined)).toBe('gray');
  });
});

describe('initialEditorStatus', () => {
  it('defaults to active when none is set', () => {
    expect(initialEditorStatus('')).toBe('active');
    expect(initialEditorStatus(null)).toBe('active');
    expect(initialEditorStatus('inactive')).toBe('inactive');
  });
});

describe('initialsOf', () => {
  it('uses the first two words of the name, else the e-mail', () => {
    expect(initialsOf('ada lovelace byron', 'a@x.io')).toBe('AL');
    expect(initialsOf('', 'zoe@x.io')).toBe('Z');
    expect(initialsOf(null, null)).toBe('U');
  });
});
