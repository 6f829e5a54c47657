import { Skeleton } from 'antd';

/** Loading placeholder for the agent list. */
export function AgentsSkeleton() {
  return (
    <div className="agents-skeleton" role="status" aria-label="Loading agents" aria-busy="true">
      {Array.from({ length: 4 }, (_, i) => (
        <div className="agents-skeleton__row" key={i}>
          <Skeleton.Avatar active shape="square" />
          <Skeleton active title={false} paragraph={{ rows: 2, width: ['40%', '70%'] }} />
        </div>
      ))}
    </div>
  );
}
