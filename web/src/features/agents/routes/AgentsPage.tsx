import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Input } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Navigate, useBlocker, useNavigate, useParams, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { toast } from '@/components/toast';
import { usePageTitle } from '@/components/usePageTitle';
import { useAuth } from '@/features/auth';
import { AGENTS_QUERY_KEY, useAgents } from '../api/agents';
import { AgentsEmptyState } from '../components/AgentsEmptyState';
import { AgentsSkeleton } from '../components/AgentsSkeleton';
import { AgentsTable } from '../components/AgentsTable';
import { CreateAgentDialog } from '../components/CreateAgentDialog';
import { AgentEditor } from '../components/editor/AgentEditor';
import { DiscardChangesDialog } from '../components/editor/DiscardChangesDialog';
import { EDITOR_TEXTS } from '../components/editor/editor-texts';
import { clearDraft } from '../lib/editor-draft';
import { AGENTS_PATH, editorAgentIdOf, editorPath, tabOf, type EditorTab } from '../lib/editor-url';
import { filterAgents } from '../lib/filter-agents';
import type { Agent } from '../types';
import '../agents.css';

/**
 * /dashboard/agentic-users: the agent list and the Create New Agent dialog; `/dashboard/agentic-users/{id}` and
 * `/dashboard/agentic-users/{id}/{tab}` open that agent's editor on that tab (issue 29; the old `?agent=<id>`
 * links are redirected there). Leaving an editor with unsaved changes (×, Escape, Back, another route) asks
 * "Discard unsaved changes?" first.
 */
export function AgentsPage() {
  usePageTitle('Your Agentic Users');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { user } = useAuth();
  const uid = user?.uid ?? null;
  const { data: agents, isPending, isFetching, error } = useAgents();
  const [search, setSearch] = useState('');
  const [createOpen, setCreateOpen] = useState(false);
  const { agentId, tab: tabSegment } = useParams();
  const [params] = useSearchParams();
  const legacyId = agentId ? null : params.get('agent');
  const tab = tabOf(tabSegment);
  const current = agentId ? (agents?.find((a) => a.id === agentId) ?? null) : null;
  // The list is loaded and settled, and the address names none of its agents (unknown, deleted or another
  // user's: the catalog answers 404 for all three alike).
  const missing = Boolean(agentId && agents && !isFetching && !current);

  // Whether the open editor holds unsaved changes, and whether it is being left on purpose (after a deletion).
  const dirtyRef = useRef(false);
  const leavingRef = useRef(false);
  const onDirtyChange = useCallback((dirty: boolean) => {
    dirtyRef.current = dirty;
  }, []);

  const blocker = useBlocker(({ currentLocation, nextLocation }) => {
    if (!dirtyRef.current || leavingRef.current) return false;
    const from = editorAgentIdOf(currentLocation.pathname);
    // Another tab of the same editor keeps the changes; signing out is never held up.
    return from !== null && editorAgentIdOf(nextLocation.pathname) !== from && nextLocation.pathname !== '/auth';
  });

  const filtered = useMemo(() => filterAgents(agents ?? [], search), [agents, search]);
  const openCreate = () => setCreateOpen(true);
  const openEditor = (agent: Agent) => navigate(editorPath(agent.id));

  // Closing the editor refreshes the agent list (spec "Agent editor"), however it was closed.
  const openId = current?.id ?? null;
  const previousOpenId = useRef<string | null>(null);
  useEffect(() => {
    if (previousOpenId.current && !openId) void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
    previousOpenId.current = openId;
    if (openId) leavingRef.current = false;
  }, [openId, queryClient]);

  // An address that names no agent of the user's: back to the list, saying so (once per address).
  const reported = useRef<string | null>(null);
  useEffect(() => {
    if (!missing || !agentId || leavingRef.current || reported.current === agentId) return;
    reported.current = agentId;
    toast({ title: EDITOR_TEXTS.notFoundTitle, description: EDITOR_TEXTS.notFoundBody, variant: 'destructive' });
    void navigate(AGENTS_PATH, { replace: true });
  }, [missing, agentId, navigate]);

  if (legacyId) return <Navigate to={editorPath(legacyId)} replace />;
  // A tab name the editor does not have: its first tab.
  if (agentId && tab === null) return <Navigate to={editorPath(agentId)} replace />;

  const closeEditor = () => void navigate(AGENTS_PATH);
  const selectTab = (next: EditorTab) => {
    if (agentId) void navigate(editorPath(agentId, next));
  };
  const afterDelete = () => {
    leavingRef.current = true;
    dirtyRef.current = false;
    void navigate(AGENTS_PATH, { replace: true });
  };
  const keepEditing = () => blocker.reset?.();
  const discard = () => {
    if (uid && agentId) clearDraft(uid, agentId);
    dirtyRef.current = false;
    blocker.proceed?.();
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
        <AgentsTable agents={filtered} onOpen={openEditor} />
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
      <CreateAgentDialog
        open={createOpen}
        onClose={() => setCreateOpen(false)}
        // A new agent's editor opens on its Instructions & Documents tab (issue 29).
        onCreated={(agent) => void navigate(editorPath(agent.id, 'instructions'))}
      />
      {current && tab && (
        <AgentEditor
          key={current.id}
          agent={current}
          open
          tab={tab}
          onTabChange={selectTab}
          onClose={closeEditor}
          onDirtyChange={onDirtyChange}
          onDeleted={afterDelete}
        />
      )}
      <DiscardChangesDialog open={blocker.state === 'blocked'} onKeep={keepEditing} onDiscard={discard} />
    </section>
  );
}

export default AgentsPage;
