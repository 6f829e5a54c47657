import { Column } from '@ant-design/plots';
import { formatMoney } from '@/features/wallet';
import { dayLabel, type EarningsColumnRow } from '../lib/series';

/** Earnings per UTC day, stacked by agent (@ant-design/plots Column). Loaded lazily: the default export. */
export default function EarningsColumnChart({ rows }: { rows: EarningsColumnRow[] }) {
  return (
    <Column
      data={rows}
      xField="date"
      yField="amount"
      colorField="agent"
      stack
      height={260}
      autoFit
      axis={{
        x: { title: false, labelFormatter: (d: string) => dayLabel(d), labelAutoHide: true },
        y: { title: false, labelFormatter: (v: number) => formatMoney(v) },
      }}
      legend={{ color: { position: 'bottom', layout: { justifyContent: 'center' } } }}
      tooltip={{
        title: (d: EarningsColumnRow) => `${d.day} · total ${formatMoney(d.dayTotal)}`,
        items: [{ channel: 'y', valueFormatter: (v: number) => formatMoney(v) }],
      }}
    />
  );
}
