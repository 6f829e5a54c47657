import { Table, type TableColumnsType } from 'antd';
import { useIsPhone } from '@/lib/use-media-query';
import type { Agent } from '../types';
import { AgentIcon } from './AgentIcon';
import { StatusBadge } from './StatusBadge';
import { TagList } from './TagList';

interface AgentsTableProps {
  agents: Agent[];
  onOpen: (agent: Agent) => void;
}

const columns: TableColumnsType<Agent> = [
  {
    title: 'Agent',
    key: 'agent',
    render: (_, agent) => (
      <div className="agent-cell">
        <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} />
        <div className="agent-cell__text">
          <span className="agent-cell__name">{agent.name}</span>
          <span className="agent-cell__description">{agent.description}</span>
        </div>
      </div>
    ),
  },
  { title: 'Category', dataIndex: 'category', key: 'category' },
  { title: 'Status', dataIndex: 'status', key: 'status', render: (status: string) => <StatusBadge status={status} /> },
  { title: 'Users', dataIndex: 'subscribers', key: 'subscribers', render: (n: number) => n ?? 0 },
  { title: 'Interactions', dataIndex: 'totalInteractions', key: 'totalInteractions', render: (n: number) => n ?? 0 },
  { title: 'Tags', dataIndex: 'tags', key: 'tags', render: (tags: string[]) => <TagList tags={tags} /> },
];

/** On phones: the key columns only (the agent and its status), fitting the screen without horizontal scrolling. */
const PHONE_KEYS = new Set(['agent', 'status']);
const phoneColumns: TableColumnsType<Agent> = columns
  .filter((c) => PHONE_KEYS.has(String(c.key)))
  .map((c) => (c.key === 'status' ? { ...c, width: 104 } : c));

/** The agent list table: no pagination, 'No results.' when empty, a row opens the editor. */
export function AgentsTable({ agents, onOpen }: AgentsTableProps) {
  const phone = useIsPhone();
  return (
    <Table<Agent>
      className={phone ? 'agents-table agents-table--phone' : 'agents-table'}
      rowKey="id"
      columns={phone ? phoneColumns : columns}
      dataSource={agents}
      pagination={false}
      locale={{ emptyText: 'No results.' }}
      tableLayout={phone ? 'fixed' : undefined}
      scroll={phone ? undefined : { x: 'max-content' }}
      onRow={(agent) => ({
        onClick: () => onOpen(agent),
        onKeyDown: (event) => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            onOpen(agent);
          }
        },
        tabIndex: 0,
        className: 'agents-table__row',
      })}
    />
  );
}
