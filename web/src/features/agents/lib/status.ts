export type BadgeColor = 'green' | 'gray' | 'yellow' | 'blue';

/** List badge colours (spec §4 "Agent status"): active green, inactive gray, pending yellow, else gray. */
export function agentStatusColor(status: string | null | undefined): BadgeColor {
  switch (status) {
    case 'active':
      return 'green';
    case 'pending':
      return 'yellow';
    default:
      return 'gray';
  }
}

/** Subscriber status badge: active green, invited blue, anything else gray. */
export function subscriberStatusColor(status: string | null | undefined): BadgeColor {
  if (status === 'active') return 'green';
  if (status === 'invited') return 'blue';
  return 'gray';
}

/**
 * The editor's starting status: the agent's own, or 'active' when none is set (spec §4).
 * The Status buttons then toggle between 'active' and 'inactive'.
 */
export function initialEditorStatus(status: string | null | undefined): string {
  return status ? status : 'active';
}

/** Initials for a subscriber avatar: first letters of the first two words of the name, else the e-mail's. */
export function initialsOf(name: string | null | undefined, email?: string | null): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length) return words.slice(0, 2).map((w) => w[0]!.toUpperCase()).join('');
  const e = (email ?? '').trim();
  return e ? e[0]!.toUpperCase() : 'U';
}
