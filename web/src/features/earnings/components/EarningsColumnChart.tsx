import { DailyColumnChart } from '@/components/DailyColumnChart';
import { formatMoney } from '@/features/wallet';
import type { EarningsColumnRow } from '../lib/series';

/** Earnings per UTC day, stacked by agent. Loaded lazily: the default export. */
export default function EarningsColumnChart({ rows }: { rows: EarningsColumnRow[] }) {
  return <DailyColumnChart rows={rows} height={260} money={formatMoney} />;
}
