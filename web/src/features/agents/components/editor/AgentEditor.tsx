import { MailOutlined } from '@ant-design/icons';
import { Button, Drawer, Tabs } from 'antd';
import { useContext, useEffect, useState } from 'react';
import { toast } from '@/components/toast';
import { AuthContext } from '@/features/auth';
import { LazyChatPanel } from '@/features/chat';
import { useMarketplaceEnabled } from '@/features/marketplace';
import { ApiMessageError, useUpdateAgent } from '../../api/agents';
import { clearDraft, readDraft, writeDraft, type LocalDraft } from '../../lib/editor-draft';
import { DEFAULT_EDITOR_TAB, isEditorTab, SAVE_CHANGES_TABS, type EditorTab } from '../../lib/editor-url';
import { listingValuesOf, toListingPayload, validateListing, type ListingValues } from '../../lib/listing';
import { agentNameProblem } from '../../lib/schemas';
import { initialEditorStatus } from '../../lib/status';
import type { Agent, AgentSavePayload, AgentUpdatePayload, AppearancePayload } from '../../types';
import { AgentIcon } from '../AgentIcon';
import { AgentFirstAnswerFeeNotice, AgentPausedNotice } from './AgentFeeNotice';
import { ApiTab } from './ApiTab';
import { ChannelsTab } from './ChannelsTab';
import { DraftRestoreNotice } from './DraftRestoreNotice';
import { InstructionsTab } from './InstructionsTab';
import { SettingsTab } from './SettingsTab';
import { UsersTab } from './UsersTab';

interface AgentEditorProps {
  agent: Agent;
  open: boolean;
  /** × and Escape. The agents page routes it through its unsaved-changes guard. */
  onClose: () => void;
  /** Called with the saved agent after a successful Save Changes (or the Users tab's Save cap). */
  onSaved?: (agent: Agent) => void;
  /** The open tab (the address's, issue 29); without it the editor keeps its own, starting on the first. */
  tab?: EditorTab;
  onTabChange?: (tab: EditorTab) => void;
  /** Told whenever the editor starts or stops holding unsaved changes. */
  onDirtyChange?: (dirty: boolean) => void;
  /** Called once the agent has been deleted (Settings → Delete agent). */
  onDeleted?: (agent: Agent) => void;
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

function appearanceOf(agent: Agent): AppearancePayload {
  return { name: agent.name ?? '', iconName: agent.iconName ?? '', iconColor: agent.iconColor ?? '' };
}

/** What the editor holds: compared with what was last loaded or saved, it tells whether there are unsaved changes. */
interface EditorValues {
  draft: AgentUpdatePayload;
  listing: ListingValues;
  appearance: AppearancePayload;
}

function valuesOf(agent: Agent): EditorValues {
  return { draft: draftOf(agent), listing: listingValuesOf(agent), appearance: appearanceOf(agent) };
}

/** Equal member by member, whatever the order of the members. */
function sameMembers<T extends object>(a: T, b: T): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof T>;
  for (const key of keys) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return false;
  }
  return true;
}

function hasUnsavedChanges(current: EditorValues, saved: EditorValues): boolean {
  return (
    !sameMembers(current.draft, saved.draft) ||
    !sameMembers(current.listing, saved.listing) ||
    current.appearance.name.trim() !== saved.appearance.name.trim() ||
    current.appearance.iconName !== saved.appearance.iconName ||
    current.appearance.iconColor.toUpperCase() !== saved.appearance.iconColor.toUpperCase()
  );
}

/** The appearance members that changed (only those are sent: an unchanged agent's PATCH stays as it was). */
function changedAppearance(current: AppearancePayload, saved: AppearancePayload): Partial<AppearancePayload> {
  const out: Partial<AppearancePayload> = {};
  if (current.name.trim() !== saved.name.trim()) out.name = current.name.trim();
  if (current.iconName !== saved.iconName) out.iconName = current.iconName;
  if (current.iconColor.toUpperCase() !== saved.iconColor.toUpperCase()) out.iconColor = current.iconColor;
  return out;
}

/** The fields the Settings tab shows; a server message for one of them opens that tab. */
const SETTINGS_FIELDS = new Set([
  'name',
  'iconName',
  'iconColor',
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
 * mentions) and a Save Changes footer on the tabs whose edits it saves (Instructions & Documents, Settings).
 * Issue 29: unsaved instructions are also kept on this device per user and agent, and offered back
 * ("Restore your unsaved draft?") when the editor opens again; a reload with unsaved changes asks first.
 */
export function AgentEditor({
  agent,
  open,
  onClose,
  onSaved,
  tab,
  onTabChange,
  onDirtyChange,
  onDeleted,
}: AgentEditorProps) {
  const [draft, setDraft] = useState<AgentUpdatePayload>(() => draftOf(agent));
  // The Marketplace section's values (issue 27): sent with Save Changes only while the marketplace is on.
  const [listing, setListing] = useState<ListingValues>(() => listingValuesOf(agent));
  // Name, icon and colour (issue 29): sent with Save Changes when they changed.
  const [appearance, setAppearance] = useState<AppearancePayload>(() => appearanceOf(agent));
  // The values last loaded or saved: the editor holds unsaved changes while its values differ from them.
  const [saved, setSaved] = useState<EditorValues>(() => valuesOf(agent));
  // Messages at the fields: the section's own checks and the server's 400 validation_failed "fields".
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [ownTab, setOwnTab] = useState<EditorTab>(DEFAULT_EDITOR_TAB);
  const activeTab = tab ?? ownTab;
  const uid = useContext(AuthContext)?.user?.uid ?? null;
  // Instructions kept on this device by an earlier visit that did not save them (a crash, a reload).
  const [offer, setOffer] = useState<LocalDraft | null>(() => {
    const kept = uid ? readDraft(uid, agent.id) : null;
    return kept && kept.instructions !== (agent.instructions ?? '') ? kept : null;
  });
  const marketplace = useMarketplaceEnabled();
  const update = useUpdateAgent();
  const titleId = `agent-editor-title-${agent.id}`;

  const dirty = hasUnsavedChanges({ draft, listing, appearance }, saved);
  const instructionsDirty = draft.instructions !== saved.draft.instructions;

  const selectTab = (key: EditorTab) => {
    setOwnTab(key);
    onTabChange?.(key);
  };

  useEffect(() => {
    onDirtyChange?.(dirty);
  }, [dirty, onDirtyChange]);

  // Leaving the page (reload, closing the browser tab) with unsaved changes: the browser asks first.
  useEffect(() => {
    if (!dirty) return undefined;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      Reflect.set(event, 'returnValue', '');
    };
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);

  // The local draft follows the unsaved instructions; it goes once they are saved or equal the saved text
  // (while a kept draft is offered, it stays until the owner answers).
  useEffect(() => {
    if (!uid) return;
    if (instructionsDirty) writeDraft(uid, agent.id, draft.instructions);
    else if (!offer) clearDraft(uid, agent.id);
  }, [uid, agent.id, draft.instructions, instructionsDirty, offer]);

  const restoreDraft = () => {
    if (!offer) return;
    setDraft((d) => ({ ...d, instructions: offer.instructions }));
    setOffer(null);
    selectTab('instructions');
  };

  const dismissDraft = () => {
    if (uid) clearDraft(uid, agent.id);
    setOffer(null);
  };

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

  const patchAppearance = (values: Partial<AppearancePayload>) => {
    setAppearance((a) => ({ ...a, ...values }));
    clearErrors(Object.keys(values));
  };

  const showErrors = (errors: Record<string, string>) => {
    setFieldErrors(errors);
    if (Object.keys(errors).some((field) => SETTINGS_FIELDS.has(field))) selectTab('settings');
  };

  const save = () => {
    const problems: Record<string, string> = {};
    const appearanceChanges = changedAppearance(appearance, saved.appearance);
    if (appearanceChanges.name !== undefined) {
      const problem = agentNameProblem(appearanceChanges.name);
      if (problem) problems.name = problem;
    }
    let payload: AgentSavePayload = { ...draft, ...appearanceChanges };
    if (marketplace) {
      Object.assign(problems, validateListing(listing));
      payload = { ...payload, ...toListingPayload(listing) };
    }
    if (Object.keys(problems).length > 0) {
      showErrors(problems);
      return;
    }
    const sent: EditorValues = { draft, listing, appearance };
    update.mutate(
      { id: agent.id, payload },
      {
        onSuccess: (result) => {
          setFieldErrors({});
          setSaved(sent);
          if (uid) clearDraft(uid, agent.id);
          toast({ title: 'Agent Updated', description: `Your changes to ${result?.name ?? agent.name} have been saved.` });
          if (result) onSaved?.(result);
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
            <MailOutlined aria-hidden="true" /> <span className="sr-only">Agent e-mail address: </span>
            <a href={`mailto:${agent.email}`} data-testid="agent-email">
              {agent.email}
            </a>
          </p>
        )}
        <AgentPausedNotice agentId={agent.id} enabled={open} />
      </div>
    </div>
  );

  const showSaveBar = SAVE_CHANGES_TABS.has(activeTab);

  return (
    <Drawer
      open={open}
      onClose={onClose}
      placement="right"
      size="100%"
      title={header}
      aria-labelledby={titleId}
      className="agent-editor"
      // The chat's conversations drawer (phones) opens over the editor without shifting it.
      push={false}
      destroyOnHidden
      footer={
        showSaveBar ? (
          <div className="agent-editor__footer">
            <Button type="primary" onClick={save} disabled={update.isPending}>
              {update.isPending ? 'Saving...' : 'Save Changes'}
            </Button>
          </div>
        ) : null
      }
    >
      {offer && <DraftRestoreNotice savedAt={offer.savedAt} onRestore={restoreDraft} onDismiss={dismissDraft} />}
      <Tabs
        activeKey={activeTab}
        onChange={(key) => {
          if (isEditorTab(key)) selectTab(key);
        }}
        className="agent-editor__tabs"
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
                appearance={appearance}
                onAppearanceChange={patchAppearance}
                agentName={agent.name}
                onDeleted={() => {
                  if (uid) clearDraft(uid, agent.id);
                  onDeleted?.(agent);
                }}
              />
            ),
          },
          {
            key: 'chat',
            label: 'Chat',
            // Lazily loaded on first open; the tab stays mounted afterwards, so an answer keeps streaming.
            children: (
              <>
                {/* Before the first answer of a fee period: the $10.00 monthly fee it starts (issue 29). */}
                <AgentFirstAnswerFeeNotice agentId={agent.id} enabled={open} />
                <LazyChatPanel agentId={agent.id} agentName={agent.name} role="owner" headingLevel={3} />
              </>
            ),
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
