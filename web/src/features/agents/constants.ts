/** Agent constants of spec §3 (icon and colour options) and §9 (Agents). */

export interface IconOption {
  /** Display name, also the accessible label in the picker. */
  label: string;
  /** The Remix icon class stored as the agent's iconName. */
  value: string;
}

export const ICON_OPTIONS: readonly IconOption[] = [
  { label: 'Robot', value: 'ri-robot-line' },
  { label: 'User', value: 'ri-user-line' },
  { label: 'Brain', value: 'ri-brain-line' },
  { label: 'Code', value: 'ri-code-line' },
  { label: 'Customer Service', value: 'ri-customer-service-line' },
  { label: 'Document', value: 'ri-file-text-line' },
  { label: 'Search', value: 'ri-search-line' },
  { label: 'Chat', value: 'ri-chat-3-line' },
];

export const DEFAULT_ICON = 'ri-robot-line';

export interface ColorOption {
  label: string;
  value: string;
}

export const COLOR_OPTIONS: readonly ColorOption[] = [
  { label: 'Orange', value: '#FF3E00' },
  { label: 'Blue', value: '#4076D6' },
  { label: 'Purple', value: '#6767EC' },
  { label: 'Green', value: '#10B981' },
  { label: 'Red', value: '#EF4444' },
  { label: 'Yellow', value: '#F59E0B' },
];

export const DEFAULT_COLOR = '#FF3E00';

/**
 * Suggestions offered by the Category input (a free-text field with a datalist): the
 * audiences of spec §1 plus a few general ones. Any other text is accepted.
 */
export const CATEGORY_SUGGESTIONS: readonly string[] = [
  'Education',
  'Compliance',
  'Technical Writing',
  'Customer Support',
  'Research',
  'Software Development',
  'Consulting',
  'Other',
];

/** The list shows at most this many tags per row, then a +N badge (spec §9). */
export const MAX_VISIBLE_TAGS = 2;

export const PUBLIC_AGENTS_NOTE = 'Public agents are coming soon';
