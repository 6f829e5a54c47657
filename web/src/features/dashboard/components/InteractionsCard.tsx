import { ReloadOutlined } from '@ant-design/icons';
import { Button, Skeleton } from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { ChartBoundary, useUsage } from '@/features/wallet';
import {
  INTERACTIONS_TEXTS,
  interactionRows,
  interactionsSummary,
  totalInteractions,
} from '../lib/interactions-chart';

const InteractionsColumnChart = lazy(() => import('./InteractionsColumnChart'));

function ChartSkeleton({ label }: { label: string }) {
  return (
    <div className="interactions-chart__placeholder" role="status" aria-label={label} aria-busy="true">
      <Skeleton.Node active style={{ width: '100%', height: 200 }}>
        <span />
      </Skeleton.Node>
    </div>
  );
}

/** Dashboard: answers per day for the last 30 days (the analytics usage series), with its states. */
export function InteractionsCard({ uid, enabled }: { uid: string | undefined; enabled: boolean }) {
  const query = useUsage(uid, enabled);
  const rows = useMemo(() => (query.data ? interactionRows(query.data) : []), [query.data]);

  let body;
  if (query.isError) {
    body = (
      <div className="interactions-card__error" role="alert">
        <p>{INTERACTIONS_TEXTS.error}</p>
        <Button icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void query.refetch()}>
          Try again
        </Button>
      </div>
    );
  } else if (!query.data) {
    body = <ChartSkeleton label={INTERACTIONS_TEXTS.loading} />;
  } else if (totalInteractions(query.data) === 0) {
    body = <p className="interactions-card__empty">{INTERACTIONS_TEXTS.empty}</p>;
  } else {
    body = (
      <>
        <p className="interactions-card__total">
          <span data-testid="interactions-total">{totalInteractions(query.data)}</span> answers in the last{' '}
          {query.data.days.length} days
        </p>
        <div className="interactions-chart" role="img" aria-label={interactionsSummary(query.data)}>
          <ChartBoundary>
            <Suspense fallback={<ChartSkeleton label="Loading chart" />}>
              <InteractionsColumnChart rows={rows} />
            </Suspense>
          </ChartBoundary>
        </div>
      </>
    );
  }
  return (
    <section className="interactions-card" aria-labelledby="dashboard-interactions-title" data-testid="interactions-card">
      <header className="interactions-card__header">
        <h2 id="dashboard-interactions-title" className="interactions-card__title">
          {INTERACTIONS_TEXTS.title}
        </h2>
        <span className="interactions-card__subtitle">Last 30 days</span>
      </header>
      {body}
    </section>
  );
}
