import { DailyColumnChart } from '@/components/DailyColumnChart';
import { formatSpend, type UsageColumnRow } from '../lib/usage-chart';

/**
 * Spend per day, stacked by agent. Loaded lazily by UsageCard (the chart library is large), so it
 * is the module's default export.
 */
export default function UsageColumnChart({ rows }: { rows: UsageColumnRow[] }) {
  return <DailyColumnChart rows={rows} height={280} money={formatSpend} />;
}
