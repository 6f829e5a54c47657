import { Skeleton } from 'antd';
import type { DashboardStats } from '../api/dashboard';
import { formatCents, formatCount, formatGrowth, growthTone } from '../lib/format';

interface StatCardProps {
  title: string;
  value: string;
  growth: number;
}

/** One statistic with its growth ('+12.5% from last month', arrow and colour by sign). */
export function StatCard({ title, value, growth }: StatCardProps) {
  const tone = growthTone(growth);
  return (
    <article className="stat-card" aria-label={title} data-testid="stat-card">
      <h2 className="stat-card__title">{title}</h2>
      <p className="stat-card__value">{value}</p>
      <p className="stat-card__growth" data-direction={tone.direction} data-color={tone.color}>
        <span className={`growth--${tone.color}`}>
          <i className={`dash-ri ri-arrow-${tone.direction}-line`} aria-hidden="true" />
          <span className="dash-sr-only">{tone.direction === 'up' ? 'Up ' : 'Down '}</span>
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
      <StatCard title="Total Agentic Users" value={formatCount(stats.agentCount)} growth={stats.agentGrowth} />
      <StatCard title="Total Revenue" value={formatCents(stats.totalRevenue)} growth={stats.revenueGrowth} />
      <StatCard title="Interactions" value={formatCount(stats.totalInteractions)} growth={stats.interactionGrowth} />
    </div>
  );
}
