import type { CSSProperties } from 'react';
import { DEFAULT_COLOR, DEFAULT_ICON, ICON_OPTIONS } from '../constants';
import './agent-icons.css';

const KNOWN_ICONS = new Set(ICON_OPTIONS.map((o) => o.value));

interface AgentIconProps {
  iconName?: string | null;
  iconColor?: string | null;
  size?: 'small' | 'medium' | 'large';
}

/** The agent's Remix icon on a tile tinted with its colour (decorative: the name is shown beside it). */
export function AgentIcon({ iconName, iconColor, size = 'medium' }: AgentIconProps) {
  const icon = iconName && KNOWN_ICONS.has(iconName) ? iconName : DEFAULT_ICON;
  const color = iconColor || DEFAULT_COLOR;
  return (
    <span
      className={`agent-icon agent-icon--${size}`}
      style={{ '--agent-color': color } as CSSProperties}
      aria-hidden="true"
      data-icon={icon}
    >
      <i className={`agent-ri ${icon}`} />
    </span>
  );
}
