import { ReloadOutlined } from '@ant-design/icons';
import { Button, Skeleton } from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { useUsage, type Usage } from '../api/usage';
import {
  agentLabels,
  dayLabel,
  formatSpend,
  isUsageEmpty,
  USAGE_TEXTS,
  usageColumnRows,
  usageSummary,
} from '../lib/usage-chart';
import { ChartBoundary } from './ChartBoundary';

const UsageColumnChart = lazy(() => import('./UsageColumnChart'));

function ChartSkeleton({ label }: { label: string }) {
  return (
    <div className="usage-chart__placeholder" role="status" aria-label={label} aria-busy="true">
      <Skeleton.Node active style={{ width: '100%', height: 240 }}>
        <span />
      </Skeleton.Node>
    </div>
  );
}

function UsageBody({ usage }: { usage: Usage }) {
  const rows = useMemo(() => usageColumnRows(usage), [usage]);
  const labels = useMemo(() => agentLabels(usage), [usage]);
  const spentDays = usage.days.filter((d) => d.total > 0 || d.interactions > 0);
  return (
    <>
      <p className="usage-total">
        <span className="usage-total__label">Total (last {usage.days.length} days)</span>{' '}
        <span className="usage-total__value" data-testid="usage-total">
          {formatSpend(usage.total)}
        </span>
      </p>
      {(usage.fees ?? 0) > 0 && (
        // Monthly agent fees apart from the answers' usage (issue 29).
        <p className="usage-split" data-testid="usage-split">
          <span>
            Usage <span data-testid="usage-answers">{formatSpend(Math.max(usage.total - (usage.fees ?? 0), 0))}</span>
          </span>
          <span aria-hidden="true"> · </span>
          <span>
            Agent fees <span data-testid="usage-fees">{formatSpend(usage.fees ?? 0)}</span>
          </span>
        </p>
      )}
      <div className="usage-chart" role="img" aria-label={usageSummary(usage)}>
        <ChartBoundary>
          <Suspense fallback={<ChartSkeleton label="Loading chart" />}>
            <UsageColumnChart rows={rows} />
          </Suspense>
        </ChartBoundary>
      </div>
      <ul className="usage-agents" aria-label="Spend by agent">
        {usage.agents.map((a) => (
          <li key={a.agentId} className="usage-agents__item" data-agent-id={a.agentId}>
            <span className="usage-agents__name">{labels.get(a.agentId) ?? a.agentName}</span>
            <span className="usage-agents__amount">{formatSpend(Math.max(a.amount - (a.fees ?? 0), 0))}</span>
            <span className="usage-agents__count">
              {a.interactions} {a.interactions === 1 ? 'answer' : 'answers'}
              {(a.fees ?? 0) > 0 && <span className="usage-agents__fee"> + agent fee {formatSpend(a.fees ?? 0)}</span>}
            </span>
          </li>
        ))}
      </ul>
      <details className="usage-table">
        <summary>Show usage as a table</summary>
        <table className="wallet-table">
          <caption className="sr-only">Spend per day by agent</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Agent</th>
              <th scope="col">Usage</th>
              <th scope="col">Agent fee</th>
              <th scope="col">Answers</th>
            </tr>
          </thead>
          <tbody>
            {spentDays.flatMap((d) =>
              d.agents.map((a) => (
                <tr key={`${d.date}-${a.agentId}`}>
                  <td>{dayLabel(d.date)}</td>
                  <td>{labels.get(a.agentId) ?? a.agentName}</td>
                  <td>{formatSpend(Math.max(a.amount - (a.fees ?? 0), 0))}</td>
                  <td>{(a.fees ?? 0) > 0 ? formatSpend(a.fees ?? 0) : '—'}</td>
                  <td>{a.interactions}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </details>
    </>
  );
}

/** The wallet's Usage card: spend per day for the last 30 days, stacked by agent, with the total. */
export function UsageCard({ uid }: { uid: string | undefined }) {
  const query = useUsage(uid);
  let body;
  if (query.isError) {
    body = (
      <div className="wallet-card__error" role="alert">
        <p>{USAGE_TEXTS.error}</p>
        <Button icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void query.refetch()}>
          Try again
        </Button>
      </div>
    );
  } else if (!query.data) {
    body = <ChartSkeleton label={USAGE_TEXTS.loading} />;
  } else if (isUsageEmpty(query.data)) {
    body = <p className="wallet-card__empty">{USAGE_TEXTS.empty}</p>;
  } else {
    body = <UsageBody usage={query.data} />;
  }
  return (
    <section className="wallet-card wallet-card--wide" aria-labelledby="wallet-usage-title" data-testid="usage-card">
      <header className="wallet-card__header">
        <h2 id="wallet-usage-title" className="wallet-card__title">
          {USAGE_TEXTS.title}
        </h2>
        <span className="wallet-card__subtitle">Spend per day, last 30 days</span>
      </header>
      {body}
    </section>
  );
}
