import { MailOutlined } from '@ant-design/icons';
import { Button, Drawer, Tabs } from 'antd';
import { useState } from 'react';
import { toast } from '@/components/toast';
import { LazyChatPanel } from '@/features/chat';
import { useMarketplaceEnabled } from '@/features/marketplace/api/use-marketplace-enabled';
import { ApiMessageError, useUpdateAgent } from '../../api/agents';
import { listingValuesOf, toListingPayload, validateListing, type ListingValues } from '../../lib/listing';
import { initialEditorStatus } from '../../lib/status';
import type { Agent, AgentSavePayload, AgentUpdatePayload } from '../../types';
import { AgentIcon } from '../AgentIcon';
import { AgentPausedNotice } from './AgentFeeNotice';
import { ApiTab } from './ApiTab';
import { ChannelsTab } from './ChannelsTab';
import { InstructionsTab } from './InstructionsTab';
import { SettingsTab } from './SettingsTab';
import { UsersTab } from './UsersTab';

interface AgentEditorProps {
  agent: Agent;
  open: boolean;
  onClose: () => void;
  /** Called with the saved agent after a successful Save Changes (or the Users tab's Save cap). */
  onSaved?: (agent: Agent) => void;
}

function draftOf(agent: Agent): AgentUpdatePayload {
  return {
    instructions: agent.instructions ?? '',
    status: initialEditorStatus(agent.status),
    isPublic: agent.isPublic ?? false,
    tags: [...(agent.tags ?? [])],
    description: agent.description ?? '',
  };
}

/** The fields the Settings tab shows; a server message for one of them opens that tab. */
const SETTINGS_FIELDS = new Set([
  'status',
  'isPublic',
  'tags',
  'description',
  'markupPercent',
  'greetingCostCents',
  'greeting',
  'memoryTokens',
  'showSources',
]);

/**
 * The full-screen agent editor: a dialog named by the agent's name, a header with its icon,
 * name, description and e-mail address (and "Paused: add funds to resume" when its monthly fee is unpaid),
 * the tabs (Chat talks to the agent; Channels shows its e-mail address and the Google Docs it watches for
 * mentions) and a Save Changes footer.
 */
export function AgentEditor({ agent, open, onClose, onSaved }: AgentEditorProps) {
  const [draft, setDraft] = useState<AgentUpdatePayload>(() => draftOf(agent));
  // The Marketplace section's values (issue 27): sent with Save Changes only while the marketplace is on.
  const [listing, setListing] = useState<ListingValues>(() => listingValuesOf(agent));
  // Messages at the fields: the section's own checks and the server's 400 validation_failed "fields".
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [activeTab, setActiveTab] = useState('instructions');
  const marketplace = useMarketplaceEnabled();
  const update = useUpdateAgent();
  const titleId = `agent-editor-title-${agent.id}`;

  /** Drops the messages of the fields that change (a new value deserves a new verdict). */
  const clearErrors = (fields: string[]) =>
    setFieldErrors((errors) => {
      if (!fields.some((f) => f in errors)) return errors;
      const next = { ...errors };
      for (const f of fields) delete next[f];
      return next;
    });

  const patch = (values: Partial<AgentUpdatePayload>) => {
    setDraft((d) => ({ ...d, ...values }));
    // Status and visibility both decide whether publishing is allowed.
    clearErrors([...Object.keys(values), ...('status' in values ? ['isPublic'] : [])]);
  };

  const patchListing = (values: Partial<ListingValues>) => {
    setListing((l) => ({ ...l, ...values }));
    clearErrors(Object.keys(values).map((key) => (key === 'greetingCost' ? 'greetingCostCents' : key)));
  };

  const showErrors = (errors: Record<string, string>) => {
    setFieldErrors(errors);
    if (Object.keys(errors).some((field) => SETTINGS_FIELDS.has(field))) setActiveTab('settings');
  };

  const save = () => {
    let payload: AgentSavePayload = draft;
    if (marketplace) {
      const problems = validateListing(listing);
      if (Object.keys(problems).length > 0) {
        showErrors(problems);
        return;
      }
      payload = { ...draft, ...toListingPayload(listing) };
    }
    update.mutate(
      { id: agent.id, payload },
      {
        onSuccess: (saved) => {
          setFieldErrors({});
          toast({ title: 'Agent Updated', description: `Your changes to ${saved?.name ?? agent.name} have been saved.` });
          if (saved) onSaved?.(saved);
        },
        onError: (error) => {
          console.error('Error updating agent:', error);
          if (error instanceof ApiMessageError && error.fields) showErrors(error.fields);
          toast({ title: 'Error', description: error.message, variant: 'destructive', error });
        },
      },
    );
  };

  const header = (
    <div className="agent-editor__header">
      <AgentIcon iconName={agent.iconName} iconColor={agent.iconColor} size="large" />
      <div className="agent-editor__heading">
        <h2 id={titleId} className="agent-editor__name">
          {agent.name}
        </h2>
        <p className="agent-editor__description">{agent.description}</p>
        {agent.email && (
          <p className="agent-editor__email">
            <MailOutlined aria-hidden="true" /> <span className="agents-sr-only">Agent e-mail address: </span>
            <a href={`mailto:${agent.email}`} data-testid="agent-email">
              {agent.email}
            </a>
          </p>
        )}
        <AgentPausedNotice agentId={agent.id} enabled={open} />
      </div>
    </div>
  );

  return (
    <Drawer
      open={open}
      onClose={onClose}
      placement="right"
      size="100%"
      title={header}
      aria-labelledby={titleId}
      className="agent-editor"
      destroyOnHidden
      footer={
        <div className="agent-editor__footer">
          <Button type="primary" onClick={save} disabled={update.isPending}>
            {update.isPending ? 'Saving...' : 'Save Changes'}
          </Button>
        </div>
      }
    >
      <Tabs
        activeKey={activeTab}
        onChange={setActiveTab}
        items={[
          {
            key: 'instructions',
            label: 'Instructions & Documents',
            children: (
              <InstructionsTab
                agentId={agent.id}
                agentEmail={agent.email}
                value={draft.instructions}
                onChange={(instructions) => patch({ instructions })}
              />
            ),
          },
          {
            key: 'users',
            label: 'Users',
            // The default cap per subscriber is saved by the tab's own Save cap button, not by Save Changes.
            children: (
              <UsersTab
                agentId={agent.id}
                enabled={open}
                defaultCapCents={agent.subscriberMonthlyCapCents ?? null}
                onAgentSaved={onSaved}
              />
            ),
          },
          {
            key: 'settings',
            label: 'Settings',
            children: (
              <SettingsTab
                agentId={agent.id}
                values={{ status: draft.status, isPublic: draft.isPublic, tags: draft.tags, description: draft.description }}
                onChange={patch}
                marketplace={marketplace}
                slug={agent.slug ?? null}
                listing={listing}
                onListingChange={patchListing}
                errors={fieldErrors}
              />
            ),
          },
          {
            key: 'chat',
            label: 'Chat',
            // Lazily loaded on first open; the tab stays mounted afterwards, so an answer keeps streaming.
            children: <LazyChatPanel agentId={agent.id} agentName={agent.name} role="owner" headingLevel={3} />,
          },
          {
            key: 'channels',
            label: 'Channels',
            children: <ChannelsTab agentId={agent.id} agentEmail={agent.email} agentStatus={agent.status} enabled={open} />,
          },
          {
            key: 'api',
            label: 'API',
            // Keys and examples for the OpenAI-compatible agent API; lazily loaded on first open.
            children: <ApiTab agentId={agent.id} agentName={agent.name} enabled={open} />,
          },
        ]}
      />
    </Drawer>
  );
}
