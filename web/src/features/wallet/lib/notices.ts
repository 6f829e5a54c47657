import type { BalanceDetails } from '../api/billing';
import { formatMoney, formatUsd } from './format';

export type NoticeKind = 'debt' | 'limit_100' | 'limit_80' | 'low_balance' | 'auto_recharge_off' | 'auto_recharge_failed';

export interface Notice {
  kind: NoticeKind;
  /** antd Alert type. */
  type: 'error' | 'warning';
  message: string;
  description?: string;
}

/**
 * The billing notices of a balance response, most serious first: debt after a refund, the monthly limit
 * reached (100%) or nearly (80%), a low balance, and auto-recharge problems (turned off after failures,
 * or the last attempt declined). Fields an older wallet does not send produce no notice.
 */
export function balanceNotices(b: BalanceDetails | undefined | null, opts: { autoRecharge?: boolean } = {}): Notice[] {
  if (!b) return [];
  const out: Notice[] = [];
  if (b.debt > 0) {
    out.push({
      kind: 'debt',
      type: 'error',
      message: `You owe ${formatMoney(b.debt)} after a refund; your next top-up pays it first.`,
      description: 'Your agents cannot answer until the debt is paid.',
    });
  }
  const limit = b.monthlyLimit;
  const used = b.monthUsage;
  const usage = limit !== null && used !== null ? ` (${formatMoney(used)} of ${formatUsd(limit)})` : '';
  if (b.limitWarning === 'limit_100') {
    out.push({
      kind: 'limit_100',
      type: 'error',
      message: `You have reached your monthly spending limit${usage}.`,
      description: 'Answers are refused until next month, or raise the limit under Spend controls.',
    });
  } else if (b.limitWarning === 'limit_80') {
    const pct = limit && used !== null ? Math.min(99, Math.floor((used / limit) * 100)) : 80;
    out.push({
      kind: 'limit_80',
      type: 'warning',
      message: `You have used ${pct}% of your monthly spending limit${usage}.`,
      description: 'Answers are refused once the limit is reached.',
    });
  }
  if (b.lowBalance) {
    const threshold = b.lowBalanceThreshold !== null ? `, below your ${formatUsd(b.lowBalanceThreshold)} threshold` : '';
    out.push({
      kind: 'low_balance',
      type: 'warning',
      message: `Your balance is low: ${formatMoney(b.available)} available${threshold}.`,
      description: 'Add funds to keep your agents answering.',
    });
  }
  if (opts.autoRecharge && b.autoRecharge) {
    if (b.autoRecharge.disabledReason) {
      out.push({
        kind: 'auto_recharge_off',
        type: 'warning',
        message: 'Auto-recharge was turned off.',
        description: b.autoRecharge.disabledReason,
      });
    } else if (b.autoRecharge.enabled && b.autoRecharge.lastFailure) {
      out.push({
        kind: 'auto_recharge_failed',
        type: 'warning',
        message: 'The last auto-recharge failed.',
        description: b.autoRecharge.lastFailure,
      });
    }
  }
  return out;
}
