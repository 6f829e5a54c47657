import type { Activity, DashboardStats } from '../api/dashboard';

/** The first-run checklist's steps (issue 29), in order. */
export type ChecklistStepId = 'agent' | 'document' | 'question' | 'funds';

export interface ChecklistStep {
  id: ChecklistStepId;
  label: string;
  done: boolean;
  /** Where to do it. */
  href: string;
  action: string;
}

export const CHECKLIST_TEXTS = {
  title: 'Get started',
  subtitle: 'A few steps to your first answer.',
  dismiss: 'Dismiss checklist',
  progress: (done: number, total: number) => `${done} of ${total} done`,
  steps: {
    agent: 'Create an agent',
    document: 'Link and share a document',
    question: 'Ask it a question',
    funds: 'Add funds',
  },
} as const;

/** What the dashboard already knows (each part undefined while it loads or when it failed). */
export interface ChecklistFacts {
  /** The user's agents (ids, newest first). */
  agentIds?: readonly string[];
  /** Whether one of the agents' documents is shared with its agent. */
  documentShared?: boolean;
  stats?: Pick<DashboardStats, 'agentCount' | 'totalInteractions'>;
  activities?: readonly Pick<Activity, 'activityType'>[];
  /** Wallet balance and this month's usage in dollars. */
  balance?: { balance: number; monthUsage: number | null };
}

const AGENTS_PATH = '/dashboard/agentic-users';

/** The four steps, each ticked off from existing data. */
export function checklistSteps(f: ChecklistFacts): ChecklistStep[] {
  const firstAgent = f.agentIds?.[0];
  const agentPath = (tab: string) => (firstAgent ? `${AGENTS_PATH}/${encodeURIComponent(firstAgent)}/${tab}` : AGENTS_PATH);
  const has = (type: string) => f.activities?.some((a) => a.activityType === type) ?? false;
  return [
    {
      id: 'agent',
      label: CHECKLIST_TEXTS.steps.agent,
      done: (f.agentIds?.length ?? 0) > 0 || (f.stats?.agentCount ?? 0) > 0,
      href: AGENTS_PATH,
      action: 'Create',
    },
    {
      id: 'document',
      label: CHECKLIST_TEXTS.steps.document,
      // A synced document shows in the feed as an upload.
      done: f.documentShared === true || has('upload'),
      href: agentPath('instructions'),
      action: 'Link',
    },
    {
      id: 'question',
      label: CHECKLIST_TEXTS.steps.question,
      done: (f.stats?.totalInteractions ?? 0) > 0 || has('response'),
      href: agentPath('chat'),
      action: 'Ask',
    },
    {
      id: 'funds',
      label: CHECKLIST_TEXTS.steps.funds,
      // Money in the wallet, or spent from it this month.
      done: (f.balance?.balance ?? 0) > 0 || (f.balance?.monthUsage ?? 0) > 0,
      href: '/dashboard/wallet',
      action: 'Add',
    },
  ];
}

/** localStorage key of "dismissed" for one user. */
export const checklistDismissedKey = (uid: string) => `agentic:first-run-checklist-dismissed:${uid}`;

export function readDismissed(uid: string | undefined): boolean {
  if (!uid) return false;
  try {
    return globalThis.localStorage?.getItem(checklistDismissedKey(uid)) === '1';
  } catch {
    return false;
  }
}

export function writeDismissed(uid: string): void {
  try {
    globalThis.localStorage?.setItem(checklistDismissedKey(uid), '1');
  } catch {
    // storage unavailable: dismissed for this visit only
  }
}
