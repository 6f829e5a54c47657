import type { CSSProperties } from 'react';

const STAR_PATH =
  'M12 2.5l2.94 5.96 6.58.96-4.76 4.64 1.12 6.55L12 17.52l-5.88 3.09 1.12-6.55L2.48 9.42l6.58-.96L12 2.5z';

/** One star (decorative, SVG: no text for the contrast checks to weigh). */
export function StarIcon() {
  return (
    <svg viewBox="0 0 24 24" className="mp-star" aria-hidden="true" focusable="false">
      <path d={STAR_PATH} />
    </svg>
  );
}

const FIVE = [0, 1, 2, 3, 4];

interface RatingStarsProps {
  /** 0–5 (one decimal). */
  value: number;
  /** The accessible name (e.g. 'Rated 4.5 out of 5 by 12 people'). */
  label: string;
  size?: 'small' | 'medium';
}

/** Five stars filled to `value`, an image named by `label`. */
export function RatingStars({ value, label, size = 'small' }: RatingStarsProps) {
  const percent = Math.max(0, Math.min(5, value)) * 20;
  return (
    <span role="img" aria-label={label} className={`mp-stars mp-stars--${size}`} style={{ '--mp-fill': `${percent}%` } as CSSProperties}>
      <span aria-hidden="true" className="mp-stars__base">
        {FIVE.map((i) => (
          <StarIcon key={i} />
        ))}
      </span>
      <span aria-hidden="true" className="mp-stars__fill">
        {FIVE.map((i) => (
          <StarIcon key={i} />
        ))}
      </span>
    </span>
  );
}
