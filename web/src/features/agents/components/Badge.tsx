import type { ReactNode } from 'react';
import type { BadgeColor } from '../lib/status';

/** A small pill; `data-color` exposes the colour for tests. */
export function Badge({ color = 'gray', children }: { color?: BadgeColor; children: ReactNode }) {
  return (
    <span className={`agent-badge agent-badge--${color}`} data-color={color}>
      {children}
    </span>
  );
}
