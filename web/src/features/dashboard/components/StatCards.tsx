import { Skeleton } from 'antd';
import type { DashboardStats } from '../api/dashboard';
import { formatCents, formatCount, formatGrowth, growthTone } from '../lib/format';

interface StatCardProps {
  title: string;
  value: string;
  growth: number;
  /** Last month's total was 0 (and this one is not): "New" rather than "+100%". */
  isNew?: boolean;
}

/** One statistic with its growth ('+12.5% from last month', arrow and colour by sign; 'New' against an empty last month). */
export function StatCard({ title, value, growth, isNew = false }: StatCardProps) {
  const tone = growthTone(growth);
  if (isNew) {
    return (
      <article className="stat-card" aria-label={title} data-testid="stat-card">
        <h2 className="stat-card__title">{title}</h2>
        <p className="stat-card__value">{value}</p>
        <p className="stat-card__growth" data-direction="new">
          <span className="stat-card__growth--new">New</span> this month
        </p>
      </article>
    );
  }
  return (
    <article className="stat-card" aria-label={title} data-testid="stat-card">
      <h2 className="stat-card__title">{title}</h2>
      <p className="stat-card__value">{value}</p>
      <p className="stat-card__growth" data-direction={tone.direction} data-color={tone.color}>
        <span className={`growth--${tone.color}`}>
          <i className={`dash-ri ri-arrow-${tone.direction}-line`} aria-hidden="true" />
          <span className="sr-only">{tone.direction === 'up' ? 'Up ' : 'Down '}</span>
          {formatGrowth(growth)}
        </span>{' '}
        from last month
      </p>
    </article>
  );
}

/** The 4 skeleton cards shown while the statistics load. */
export function StatCardsSkeleton() {
  return (
    <div className="dashboard__stats" role="status" aria-label="Loading statistics" aria-busy="true">
      {Array.from({ length: 4 }, (_, i) => (
        <div className="stat-card" key={i} data-testid="stat-card-skeleton">
          <Skeleton active title={{ width: '50%' }} paragraph={{ rows: 2, width: ['35%', '70%'] }} />
        </div>
      ))}
    </div>
  );
}

export function StatCards({ stats }: { stats: DashboardStats }) {
  return (
    <div className="dashboard__stats">
      <StatCard title="Total Agentic Users" value={formatCount(stats.agentCount)} growth={stats.agentGrowth} isNew={stats.agentNew} />
      <StatCard title="Total Revenue" value={formatCents(stats.totalRevenue)} growth={stats.revenueGrowth} isNew={stats.revenueNew} />
      <StatCard
        title="Interactions"
        value={formatCount(stats.totalInteractions)}
        growth={stats.interactionGrowth}
        isNew={stats.interactionNew}
      />
    </div>
  );
}
