import { Column } from '@ant-design/plots';
import { dayLabel } from '@/features/wallet';
import type { InteractionsRow } from '../lib/interactions-chart';

/** Answers per day (@ant-design/plots Column). Loaded lazily by InteractionsCard: the default export. */
export default function InteractionsColumnChart({ rows }: { rows: InteractionsRow[] }) {
  return (
    <Column
      data={rows}
      xField="date"
      yField="interactions"
      height={240}
      autoFit
      style={{ fill: '#4076D6' }}
      axis={{
        x: { title: false, labelFormatter: (d: string) => dayLabel(d), labelAutoHide: true },
        y: { title: false, labelFormatter: (v: number) => (Number.isInteger(v) ? String(v) : '') },
      }}
      tooltip={{
        title: (d: InteractionsRow) => d.day,
        items: [{ channel: 'y', name: 'Answers' }],
      }}
    />
  );
}
