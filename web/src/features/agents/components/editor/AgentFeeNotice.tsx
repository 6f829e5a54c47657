import { Alert } from 'antd';
import { format, parseISO } from 'date-fns';
import { useState } from 'react';
import { Link } from 'react-router';
import { useAuth } from '@/features/auth';
import { agentFeeOf, useAgentFees } from '@/features/wallet';

/** The wallet screen, where funds are added (adding funds pays the fee and resumes the agent). */
export const WALLET_PATH = '/dashboard/wallet';

export const AGENT_FEE_TEXTS = {
  paused: 'Paused: add funds to resume',
  pausedDetail:
    "This agent's monthly fee ($10.00) could not be paid from your wallet, so it refuses answers. Adding funds pays the fee and resumes it.",
  addFunds: 'Add Funds',
  paidUntil: (date: string) => `Monthly fee paid until ${date}`,
  firstAnswer: "The first answer starts this agent's $10.00 monthly fee.",
} as const;

/** 'Jan 30, 2026' in local time, or null when the timestamp does not parse. */
export function feeDate(timestamp: string): string | null {
  if (!timestamp) return null;
  const d = parseISO(timestamp);
  return Number.isNaN(d.getTime()) ? null : format(d, 'MMM d, yyyy');
}

interface AgentFeeProps {
  agentId: string;
  /** Only while the editor is open. */
  enabled?: boolean;
}

function useAgentFee(agentId: string, enabled: boolean) {
  const { user } = useAuth();
  const fees = useAgentFees(user?.uid, enabled);
  return agentFeeOf(fees.data, agentId);
}

/**
 * The editor header's notice for an agent whose monthly fee is due and unpaid (GET /api/user/agent-fees
 * says `paused`): it refuses answers until funds are added. Nothing otherwise (also while loading or when
 * the wallet cannot be asked).
 */
export function AgentPausedNotice({ agentId, enabled = true }: AgentFeeProps) {
  const fee = useAgentFee(agentId, enabled);
  if (fee?.status !== 'paused') return null;
  return (
    <Alert
      type="warning"
      showIcon
      role="alert"
      className="agent-editor__paused"
      data-testid="agent-paused"
      style={{ marginTop: 8, fontWeight: 400 }}
      title={AGENT_FEE_TEXTS.paused}
      description={AGENT_FEE_TEXTS.pausedDetail}
      action={<Link to={WALLET_PATH}>{AGENT_FEE_TEXTS.addFunds}</Link>}
    />
  );
}

/** Settings: 'Monthly fee paid until Jan 30, 2026' while a paid period covers now; nothing otherwise. */
export function AgentFeeStatus({ agentId, enabled = true }: AgentFeeProps) {
  const fee = useAgentFee(agentId, enabled);
  const until = fee?.status === 'paid' ? feeDate(fee.periodEnd) : null;
  if (!until) return null;
  return (
    <p className="agents-muted" data-testid="agent-fee-status">
      {AGENT_FEE_TEXTS.paidUntil(until)}
    </p>
  );
}

/**
 * The Chat tab's notice before the first answer of a fee period (issue 29): "The first answer starts this
 * agent's $10.00 monthly fee." while GET /api/user/agent-fees lists no paid period covering now for the agent
 * (never answered, or its period lapsed). Nothing while loading, when the wallet cannot be asked, while a
 * period is paid, or when the agent is paused (AgentPausedNotice says so). The chat refetches the fees after
 * each answer, so the notice goes once the fee is charged.
 */
export function AgentFirstAnswerFeeNotice({ agentId, enabled = true }: AgentFeeProps) {
  const { user } = useAuth();
  const fees = useAgentFees(user?.uid, enabled);
  const [mountedAt] = useState(() => Date.now());
  if (!fees.isSuccess) return null;
  const fee = agentFeeOf(fees.data, agentId);
  if (fee?.status === 'paused') return null;
  const end = fee ? Date.parse(fee.periodEnd) : NaN;
  // A paid entry covers now unless its end has passed (or cannot be read: trust the wallet).
  if (fee && (Number.isNaN(end) || end > Math.max(mountedAt, fees.dataUpdatedAt))) return null;
  return (
    <Alert
      type="info"
      showIcon
      className="agent-fee-first-answer"
      data-testid="agent-fee-first-answer"
      style={{ marginBottom: 8 }}
      title={AGENT_FEE_TEXTS.firstAnswer}
    />
  );
}
