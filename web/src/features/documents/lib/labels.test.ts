import { describe, expect, it } from 'vitest';
import { LABEL_MESSAGES, addLabel, removeLabel } from './labels';

describe('labels', () => {
  it('trims, ignores blanks and duplicates, rejects spaces', () => {
    const one = addLabel([], '  week1 ');
    expect(one).toEqual({ labels: ['week1'], error: null });
    expect(addLabel(one.labels, 'week1').labels).toBe(one.labels);
    expect(addLabel(one.labels, '   ').labels).toBe(one.labels);
    expect(addLabel(one.labels, 'two words')).toEqual({ labels: one.labels, error: LABEL_MESSAGES.spaces });
    expect(addLabel(one.labels, 'Week1').labels).toEqual(['week1', 'Week1']);
    const full = Array.from({ length: 30 }, (_, i) => `l${i}`);
    expect(addLabel(full, 'more').error).toBe(LABEL_MESSAGES.tooMany);
    expect(removeLabel(['a', 'b'], 'a')).toEqual(['b']);
  });
});
