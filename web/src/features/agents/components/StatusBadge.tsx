import { agentStatusColor } from '../lib/status';
import { Badge } from './Badge';

export function StatusBadge({ status }: { status: string | null | undefined }) {
  return <Badge color={agentStatusColor(status)}>{status || 'unknown'}</Badge>;
}
