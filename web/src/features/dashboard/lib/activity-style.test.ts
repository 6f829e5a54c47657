import { describe, expect, it } from 'vitest';
import { activityStyle, activityTags } from './activity-style';

describe('activityStyle', () => {
  it('maps the activity types to icon and colour', () => {
    expect(activityStyle('response')).toMatchObject({ icon: 'chat', color: 'blue' });
    expect(activityStyle('upload')).toMatchObject({ icon: 'file-upload', color: 'purple' });
    expect(activityStyle('subscription')).toMatchObject({ icon: 'user-add', color: 'green' });
    expect(activityStyle('update')).toMatchObject({ icon: 'edit', color: 'orange' });
    for (const other of ['create', 'info', '', undefined, null, 'toString', 'constructor']) {
      expect(activityStyle(other)).toMatchObject({ icon: 'info', color: 'gray' });
    }
  });
});

describe('activityTags', () => {
  const agent = { name: 'Tutor', iconColor: '#6767EC' };

  it('starts with the agent name in the agent colour, default blue', () => {
    expect(activityTags({ activityType: 'create', agent })).toEqual([{ label: 'Tutor', color: '#6767EC', kind: 'agent' }]);
    expect(activityTags({ activityType: 'create', agent: { name: 'Tutor', iconColor: '' } })[0].color).toBe('blue');
    expect(activityTags({ activityType: 'create', agent: { name: 'Tutor' } })[0].color).toBe('blue');
    expect(activityTags({ activityType: 'create', agent: null })).toEqual([]);
  });

  it('adds the type tags', () => {
    expect(activityTags({ activityType: 'response', agent, metadata: { documentReferences: 'Syllabus, Notes' } })[1]).toEqual({
      label: 'Documents Used: Syllabus, Notes',
      color: 'green',
      kind: 'documents-used',
    });
    expect(activityTags({ activityType: 'response', agent, metadata: {} })).toHaveLength(1);
    expect(activityTags({ activityType: 'upload', agent, metadata: { fileType: 'Google Docs' } })[1]).toEqual({
      label: 'Documents: Google Docs',
      color: 'blue',
      kind: 'documents',
    });
    expect(activityTags({ activityType: 'upload', agent, metadata: null })).toHaveLength(1);
    expect(activityTags({ activityType: 'subscription', agent })[1]).toMatchObject({ label: 'New Subscriber', color: 'orange' });
    expect(activityTags({ activityType: 'update', agent })[1]).toMatchObject({ label: 'Configuration', color: 'gray' });
    expect(activityTags({ activityType: 'info', agent, metadata: { fileType: 'x', documentReferences: 'y' } })).toHaveLength(1);
  });
});
