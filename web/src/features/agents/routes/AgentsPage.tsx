import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Input } from 'antd';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { usePageTitle } from '@/components/usePageTitle';
import { AGENTS_QUERY_KEY, useAgents } from '../api/agents';
import { AgentsEmptyState } from '../components/AgentsEmptyState';
import { AgentsSkeleton } from '../components/AgentsSkeleton';
import { AgentsTable } from '../components/AgentsTable';
import { CreateAgentDialog } from '../components/CreateAgentDialog';
import { AgentEditor } from '../components/editor/AgentEditor';
import { filterAgents } from '../lib/filter-agents';
import type { Agent } from '../types';
import '../agents.css';

/**
 * /dashboard/agentic-users: the agent list, the Create New Agent dialog and the agent editor.
 * `?agent=<id>` opens that agent's editor (the marketplace chat page links an owner there).
 */
export function AgentsPage() {
  usePageTitle('Your Agentic Users');
  const queryClient = useQueryClient();
  const { data: agents, isPending, error } = useAgents();
  const [search, setSearch] = useState('');
  const [createOpen, setCreateOpen] = useState(false);
  const [editing, setEditing] = useState<Agent | null>(null);
  const [params, setParams] = useSearchParams();
  const linkedId = params.get('agent');
  const linked = linkedId ? (agents?.find((a) => a.id === linkedId) ?? null) : null;
  const current = editing ?? linked;

  const filtered = useMemo(() => filterAgents(agents ?? [], search), [agents, search]);
  const openCreate = () => setCreateOpen(true);

  const closeEditor = () => {
    setEditing(null);
    if (linkedId) {
      setParams(
        (p) => {
          p.delete('agent');
          return p;
        },
        { replace: true },
      );
    }
    // Closing the editor refreshes the agent list (spec "Agent editor").
    void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
  };

  let content;
  if (isPending) {
    content = <AgentsSkeleton />;
  } else if (error) {
    content = (
      <p role="alert" className="agents-error">
        {error.message}
      </p>
    );
  } else if (!agents || agents.length === 0) {
    content = <AgentsEmptyState onCreate={openCreate} />;
  } else {
    content = (
      <>
        <Input
          className="agents-search"
          prefix={<SearchOutlined aria-hidden="true" />}
          placeholder="Search by name, description or category..."
          aria-label="Search agents"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          allowClear
        />
        <AgentsTable agents={filtered} onOpen={setEditing} />
      </>
    );
  }

  return (
    <section className="page agents-page">
      <div className="agents-page__header">
        <div>
          <h1 className="page__title">Your Agentic Users</h1>
          <p className="page__lead">Create and manage the AI agents built from your expertise.</p>
        </div>
        <Button type="primary" icon={<PlusOutlined aria-hidden="true" />} onClick={openCreate}>
          Create New Agent
        </Button>
      </div>
      {content}
      <CreateAgentDialog open={createOpen} onClose={() => setCreateOpen(false)} />
      {current && <AgentEditor key={current.id} agent={current} open onClose={closeEditor} onSaved={setEditing} />}
    </section>
  );
}

export default AgentsPage;
