import { Button, Skeleton } from 'antd';
import type { CSSProperties } from 'react';
import { parseHex, readableOn, tint } from '@/lib/contrast';
import type { Activity } from '../api/dashboard';
import { activityStyle, activityTags } from '../lib/activity-style';
import { relativeTime } from '../lib/relative-time';

interface RecentActivityProps {
  activities: Activity[] | undefined;
  loading: boolean;
  failed: boolean;
}

/**
 * The agent tag in the agent's colour: a light tint of it as background, the colour itself darkened
 * just enough for WCAG AA text contrast on that tint (e.g. #FF3E00 → a dark red-orange).
 */
function agentTagStyle(color: string): CSSProperties {
  const base = parseHex(color) ? color : AGENT_TAG_FALLBACK;
  const background = tint(base);
  return { '--tag-color': readableOn(base, background), '--tag-background': background } as CSSProperties;
}

/** Named 'blue' (the default) and any colour that is not #rgb / #rrggbb. */
const AGENT_TAG_FALLBACK = '#1d4ed8';

function ActivityRow({ activity }: { activity: Activity }) {
  const style = activityStyle(activity.activityType);
  const tags = activityTags(activity);
  return (
    <li className="activity-row" data-activity-type={activity.activityType}>
      <span
        className={`activity-row__icon activity-row__icon--${style.color}`}
        data-icon={style.icon}
        data-color={style.color}
        aria-hidden="true"
      >
        <i className={`dash-ri ri-${style.remixIcon}-line`} />
      </span>
      <div className="activity-row__body">
        <p className="activity-row__description">{activity.description}</p>
        <div className="activity-row__meta">
          {tags.map((tag) =>
            tag.kind === 'agent' ? (
              <span
                key={tag.kind}
                className="activity-tag activity-tag--agent"
                data-tag={tag.kind}
                data-color={tag.color}
                style={agentTagStyle(tag.color)}
              >
                {tag.label}
              </span>
            ) : (
              <span key={tag.kind} className={`activity-tag activity-tag--${tag.color}`} data-tag={tag.kind} data-color={tag.color}>
                {tag.label}
              </span>
            ),
          )}
          <time className="activity-row__time" dateTime={activity.createdAt}>
            {relativeTime(activity.createdAt)}
          </time>
        </div>
      </div>
    </li>
  );
}

/** 'Recent Activity': 2 skeleton rows while loading, the rows, or 'No recent activity'. */
export function RecentActivity({ activities, loading, failed }: RecentActivityProps) {
  const items = activities ?? [];
  return (
    <section className="activity-card" aria-labelledby="recent-activity-title">
      <div className="activity-card__header">
        <h2 className="activity-card__title" id="recent-activity-title">
          Recent Activity
        </h2>
        {!loading && items.length > 0 && <Button type="default">View all activity</Button>}
      </div>
      {loading ? (
        <div role="status" aria-label="Loading activity" aria-busy="true">
          {Array.from({ length: 2 }, (_, i) => (
            <div className="activity-skeleton__row" key={i} data-testid="activity-skeleton">
              <Skeleton.Avatar active />
              <Skeleton active title={false} paragraph={{ rows: 2, width: ['60%', '35%'] }} />
            </div>
          ))}
        </div>
      ) : failed ? (
        <p className="activity-empty" role="alert">
          Failed to load recent activity
        </p>
      ) : items.length === 0 ? (
        <p className="activity-empty">No recent activity</p>
      ) : (
        <ul className="activity-list" aria-label="Recent activity">
          {items.map((a) => (
            <ActivityRow key={a.id} activity={a} />
          ))}
        </ul>
      )}
    </section>
  );
}
