import { CheckCircleFilled, CloseOutlined } from '@ant-design/icons';
import { useQueries } from '@tanstack/react-query';
import { Button } from 'antd';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useAgents } from '@/features/agents';
import { documentsQueryKey, fetchDocuments } from '@/features/documents';
import type { BalanceDetails } from '@/features/wallet';
import type { Activity, DashboardStats } from '../api/dashboard';
import { CHECKLIST_TEXTS, checklistSteps, readDismissed, writeDismissed } from '../lib/checklist';

/** How many agents' documents are looked at (a new user has one or two). */
const MAX_AGENTS_CHECKED = 5;

interface FirstRunChecklistProps {
  uid: string | undefined;
  stats: DashboardStats | undefined;
  activities: Activity[] | undefined;
  balance: BalanceDetails | undefined;
}

/**
 * A new user's first steps (create an agent → link and share a document → ask it a question → add funds),
 * each ticked off from data the app already has (agents, their documents, the stats and activity feed, the
 * wallet). Hidden once every step is done or the user dismissed it (remembered per user in this browser),
 * and until the agents list, the stats and the balance are in (no flash for users who are long past it).
 */
export function FirstRunChecklist({ uid, stats, activities, balance }: FirstRunChecklistProps) {
  const [dismissed, setDismissed] = useState(() => readDismissed(uid));
  const agents = useAgents();
  const agentIds = agents.data?.map((a) => a.id);
  const checked = (agentIds ?? []).slice(0, MAX_AGENTS_CHECKED);
  const documents = useQueries({
    queries: checked.map((id) => ({
      queryKey: documentsQueryKey(id),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchDocuments(id, signal),
      enabled: !dismissed,
    })),
  });
  const documentShared = documents.some((q) => q.data?.some((d) => d.sharingStatus === 'shared'));
  const steps = checklistSteps({
    agentIds,
    documentShared,
    stats,
    activities,
    balance: balance ? { balance: balance.balance, monthUsage: balance.monthUsage } : undefined,
  });
  const done = steps.filter((s) => s.done).length;
  const complete = agents.isSuccess && done === steps.length;
  // Once every step is done the checklist never comes back (nor asks for the agents' documents again).
  useEffect(() => {
    if (complete && uid) writeDismissed(uid);
  }, [complete, uid]);
  // Shown once the agents, the stats and the wallet are in (no flash of open steps for users long past them).
  if (dismissed || !uid || !agents.isSuccess || !stats || !balance || complete) return null;

  const dismiss = () => {
    writeDismissed(uid);
    setDismissed(true);
  };

  return (
    <section className="first-run" aria-labelledby="first-run-title" data-testid="first-run-checklist">
      <header className="first-run__header">
        <div>
          <h2 id="first-run-title" className="first-run__title">
            {CHECKLIST_TEXTS.title}
          </h2>
          <p className="first-run__subtitle">
            {CHECKLIST_TEXTS.subtitle} <span data-testid="first-run-progress">{CHECKLIST_TEXTS.progress(done, steps.length)}</span>
          </p>
        </div>
        <Button type="text" icon={<CloseOutlined aria-hidden="true" />} aria-label={CHECKLIST_TEXTS.dismiss} onClick={dismiss} />
      </header>
      <ol className="first-run__steps">
        {steps.map((step) => (
          <li key={step.id} className="first-run__step" data-step={step.id} data-done={step.done ? 'true' : 'false'}>
            {step.done ? (
              <CheckCircleFilled className="first-run__mark first-run__mark--done" aria-hidden="true" />
            ) : (
              <span className="first-run__mark" aria-hidden="true" />
            )}
            <span className={step.done ? 'first-run__label first-run__label--done' : 'first-run__label'}>
              {step.label}
              <span className="sr-only">{step.done ? ' (done)' : ' (to do)'}</span>
            </span>
            {!step.done && (
              <Link to={step.href} className="first-run__action" aria-label={`${step.label}: ${step.action}`}>
                {step.action}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
