import { useQueries } from '@tanstack/react-query';
import { useAgents } from '@/features/agents';
import { fetchMarketplaceProfile, profileKey, ratingText } from '@/features/marketplace';
import { formatMoney } from '@/features/wallet';
import { isListed } from '../lib/listed';
import { EARNINGS_TEXTS as T } from '../lib/texts';
import type { AgentEarnings } from '../types';

const count = (n: number) => Math.max(0, Math.round(n)).toLocaleString('en-US');

/**
 * One row per agent: answers, unique users, earned and the average rating (from the agent's marketplace profile,
 * when it is listed).
 */
export function AgentEarningsTable({ rows }: { rows: AgentEarnings[] }) {
  const agents = useAgents();
  const slugs = new Map((agents.data ?? []).filter(isListed).filter((a) => a.slug).map((a) => [a.id, a.slug as string]));
  const profiles = useQueries({
    queries: rows.map((row) => {
      const slug = slugs.get(row.agentId) ?? '';
      return {
        queryKey: profileKey(slug),
        queryFn: ({ signal }: { signal: AbortSignal }) => fetchMarketplaceProfile(slug, signal),
        enabled: Boolean(slug),
        staleTime: 30_000,
      };
    }),
  });

  return (
    <section className="earnings-card" aria-labelledby="earnings-agents-title">
      <h2 id="earnings-agents-title" className="earnings-card__title">
        {T.agentsTitle}
      </h2>
      {rows.length === 0 ? (
        <p className="earnings-muted">{T.agentsEmpty}</p>
      ) : (
        <div className="earnings-table-wrap">
          <table className="earnings-table" aria-labelledby="earnings-agents-title" data-testid="earnings-agents">
            <thead>
              <tr>
                <th scope="col">{T.agentCol}</th>
                <th scope="col" className="earnings-table__num">
                  {T.answersCol}
                </th>
                <th scope="col" className="earnings-table__num">
                  {T.usersCol}
                </th>
                <th scope="col" className="earnings-table__num">
                  {T.earnedCol}
                </th>
                <th scope="col">{T.ratingCol}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => {
                const rating = profiles[i]?.data?.rating;
                return (
                  <tr key={row.agentId}>
                    <th scope="row">{row.name}</th>
                    <td className="earnings-table__num">{count(row.answers)}</td>
                    <td className="earnings-table__num">{count(row.users)}</td>
                    <td className="earnings-table__num">{formatMoney(row.earned)}</td>
                    <td>{rating ? ratingText(rating) : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
