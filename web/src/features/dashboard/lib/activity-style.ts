import type { Activity } from '../api/dashboard';

/** Icon names (Remix icons ri-<name>-line, see components/activity-icons.css). */
export type ActivityIconName = 'chat-3' | 'file-upload' | 'user-add' | 'edit' | 'information';
export type ActivityColor = 'blue' | 'purple' | 'green' | 'orange' | 'gray';

export interface ActivityStyle {
  /** The spec's icon name: chat, file-upload, user-add, edit, info. */
  icon: 'chat' | 'file-upload' | 'user-add' | 'edit' | 'info';
  /** The Remix icon drawn for it. */
  remixIcon: ActivityIconName;
  color: ActivityColor;
}

const STYLES: Record<string, ActivityStyle> = {
  response: { icon: 'chat', remixIcon: 'chat-3', color: 'blue' },
  upload: { icon: 'file-upload', remixIcon: 'file-upload', color: 'purple' },
  subscription: { icon: 'user-add', remixIcon: 'user-add', color: 'green' },
  update: { icon: 'edit', remixIcon: 'edit', color: 'orange' },
};

const INFO: ActivityStyle = { icon: 'info', remixIcon: 'information', color: 'gray' };

/** Spec §4 "Activity types": response chat/blue, upload file-upload/purple, subscription user-add/green,
 * update edit/orange, any other value info/gray. */
export function activityStyle(activityType: string | null | undefined): ActivityStyle {
  return (activityType && Object.hasOwn(STYLES, activityType) ? STYLES[activityType] : undefined) ?? INFO;
}

/** The agent tag's default colour when the agent has no iconColor. */
export const DEFAULT_AGENT_TAG_COLOR = 'blue';

export type TagColor = 'green' | 'blue' | 'orange' | 'gray';

export interface ActivityTag {
  label: string;
  /** A named colour, or (agent tag) the agent's iconColor, e.g. '#FF3E00'. */
  color: TagColor | string;
  kind: 'agent' | 'documents-used' | 'documents' | 'subscriber' | 'configuration';
}

/**
 * Spec §4 "Activity tags": the agent name coloured by the agent iconColor (default blue); response adds
 * 'Documents Used: {documentReferences}' in green when present; upload 'Documents: {fileType}' in blue
 * when present; subscription 'New Subscriber' in orange; update 'Configuration' in gray.
 */
export function activityTags(activity: Pick<Activity, 'activityType' | 'metadata' | 'agent'>): ActivityTag[] {
  const tags: ActivityTag[] = [];
  const name = activity.agent?.name;
  if (name) {
    tags.push({ label: name, color: activity.agent?.iconColor || DEFAULT_AGENT_TAG_COLOR, kind: 'agent' });
  }
  const meta = activity.metadata ?? {};
  switch (activity.activityType) {
    case 'response':
      if (meta.documentReferences) {
        tags.push({ label: `Documents Used: ${meta.documentReferences}`, color: 'green', kind: 'documents-used' });
      }
      break;
    case 'upload':
      if (meta.fileType) {
        tags.push({ label: `Documents: ${meta.fileType}`, color: 'blue', kind: 'documents' });
      }
      break;
    case 'subscription':
      tags.push({ label: 'New Subscriber', color: 'orange', kind: 'subscriber' });
      break;
    case 'update':
      tags.push({ label: 'Configuration', color: 'gray', kind: 'configuration' });
      break;
    default:
      break;
  }
  return tags;
}
