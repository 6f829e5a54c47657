import { Column } from '@ant-design/plots';
import { dayLabel, formatSpend, type UsageColumnRow } from '../lib/usage-chart';

/**
 * Spend per day, stacked by agent (@ant-design/plots Column). Loaded lazily by UsageCard (the chart
 * library is large), so it is the module's default export.
 */
export default function UsageColumnChart({ rows }: { rows: UsageColumnRow[] }) {
  return (
    <Column
      data={rows}
      xField="date"
      yField="amount"
      colorField="agent"
      stack
      height={280}
      autoFit
      axis={{
        x: { title: false, labelFormatter: (d: string) => dayLabel(d), labelAutoHide: true },
        y: { title: false, labelFormatter: (v: number) => formatSpend(v) },
      }}
      legend={{ color: { position: 'bottom', layout: { justifyContent: 'center' } } }}
      tooltip={{
        title: (d: UsageColumnRow) => `${d.day} · total ${formatSpend(d.dayTotal)}`,
        items: [{ channel: 'y', valueFormatter: (v: number) => formatSpend(v) }],
      }}
    />
  );
}
