import { Alert, Button, Skeleton } from 'antd';
import { lazy, Suspense, useMemo } from 'react';
import { ChartBoundary } from '@/features/wallet';
import { useEarningsSeries } from '../api/earnings';
import { earningsChartSummary, earningsColumnRows, lastUtcDays } from '../lib/series';
import { EARNINGS_TEXTS as T } from '../lib/texts';

// The chart library is large: its own chunk (shared with the wallet's and the dashboard's charts).
const EarningsColumnChart = lazy(() => import('./EarningsColumnChart'));

/** A daily chart of the last 30 UTC days, stacked by agent. */
export function EarningsChartCard({ uid }: { uid: string | undefined }) {
  const series = useEarningsSeries(uid);
  const days = series.data;
  const rows = useMemo(() => (days ? earningsColumnRows(days, lastUtcDays(new Date())) : []), [days]);
  const empty = !days || days.every((d) => d.earned <= 0);

  let body;
  if (series.isPending) {
    body = (
      <div role="status" aria-label={T.chartLoading}>
        <Skeleton active paragraph={{ rows: 4 }} />
      </div>
    );
  } else if (series.isError) {
    body = (
      <Alert
        type="error"
        showIcon
        title={T.chartError}
        action={
          <Button size="small" onClick={() => void series.refetch()}>
            {T.tryAgain}
          </Button>
        }
      />
    );
  } else if (empty) {
    body = <p className="earnings-muted">{T.chartEmpty}</p>;
  } else {
    body = (
      <div role="img" aria-label={earningsChartSummary(days)} className="earnings-chart">
        <ChartBoundary>
          <Suspense fallback={<Skeleton active paragraph={{ rows: 4 }} />}>
            <EarningsColumnChart rows={rows} />
          </Suspense>
        </ChartBoundary>
      </div>
    );
  }

  return (
    <section className="earnings-card" aria-labelledby="earnings-chart-title">
      <h2 id="earnings-chart-title" className="earnings-card__title">
        {T.chartTitle}
      </h2>
      {body}
    </section>
  );
}
