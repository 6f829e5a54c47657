import { Column } from '@ant-design/plots';
import { dayLabel } from '@/lib/dates';

/** One stacked segment: one agent's amount on one day. */
export interface DailyColumnRow {
  /** YYYY-MM-DD. */
  date: string;
  /** Axis label, e.g. 'Mar 9'. */
  day: string;
  agent: string;
  /** Dollars. */
  amount: number;
  dayTotal: number;
}

interface DailyColumnChartProps {
  rows: DailyColumnRow[];
  height: number;
  /** Dollars as shown on the axis and in the tooltip. */
  money: (dollars: number) => string;
}

/**
 * Amounts per day stacked by agent (@ant-design/plots Column), as spend (wallet) and earnings
 * (earnings) are drawn. The chart library is large: import this only from a lazily loaded module.
 */
export function DailyColumnChart({ rows, height, money }: DailyColumnChartProps) {
  return (
    <Column
      data={rows}
      xField="date"
      yField="amount"
      colorField="agent"
      stack
      height={height}
      autoFit
      axis={{
        x: { title: false, labelFormatter: (d: string) => dayLabel(d), labelAutoHide: true },
        y: { title: false, labelFormatter: (v: number) => money(v) },
      }}
      legend={{ color: { position: 'bottom', layout: { justifyContent: 'center' } } }}
      tooltip={{
        title: (d: DailyColumnRow) => `${d.day} · total ${money(d.dayTotal)}`,
        items: [{ channel: 'y', valueFormatter: (v: number) => money(v) }],
      }}
    />
  );
}
