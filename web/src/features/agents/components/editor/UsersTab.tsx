import { DeleteOutlined, SearchOutlined } from '@ant-design/icons';
import { Avatar, Button, Input, Table, type TableColumnsType } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { toast } from '@/components/toast';
import {
  subscribersQueryKey,
  toastMessage,
  useInviteSubscriber,
  useRevokeSubscriber,
  useSubscribers,
} from '../../api/agents';
import { useResendInvitation } from '../../api/invitations';
import { filterSubscribers } from '../../lib/filter-agents';
import { formatJoined } from '../../lib/relative-time';
import { initialsOf, subscriberStatusColor } from '../../lib/status';
import type { Agent, Subscriber } from '../../types';
import { Badge } from '../Badge';
import { DefaultCapForm, SUBSCRIBER_CAP_TEXTS, SubscriberCapCell, SubscriberCapDialog } from './SubscriberCaps';
import './users-tab.css';

/** Texts of an invited row (issue 29: invitations are e-mailed and can be resent). */
export const INVITATION_TEXTS = {
  emailed: 'Invitation e-mailed',
  resend: 'Resend',
  resendLabel: (email: string) => `Resend the invitation to ${email}`,
  resentTitle: 'Invitation Sent',
  resent: (email: string) => `The invitation was e-mailed to ${email} again.`,
  failed: 'Failed to resend the invitation.',
} as const;

interface UsersTabProps {
  agentId: string;
  /** The subscribers query runs only while the editor is open. */
  enabled: boolean;
  /** The agent's default monthly cap per subscriber in cents; null or absent = no cap. */
  defaultCapCents?: number | null;
  /** Called with the saved agent after the default cap is saved. */
  onAgentSaved?: (agent: Agent) => void;
}

/**
 * Users tab: search, the subscriber table, invite by e-mail and revoke (spec "Agent editor" → Users), the
 * default monthly cap per subscriber (saved by its own button) and each subscriber's cap.
 */
export function UsersTab({ agentId, enabled, defaultCapCents, onAgentSaved }: UsersTabProps) {
  const queryClient = useQueryClient();
  const { data, isPending, error } = useSubscribers(agentId, enabled);
  const [search, setSearch] = useState('');
  const [email, setEmail] = useState('');
  const [capFor, setCapFor] = useState<Subscriber | null>(null);
  // The last refused resend per subscriber (e.g. the 429's message stating the limit), shown in its row.
  const [resendErrors, setResendErrors] = useState<Record<string, string>>({});
  const subscribers = useMemo(() => data ?? [], [data]);
  const filtered = useMemo(() => filterSubscribers(subscribers, search), [subscribers, search]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: subscribersQueryKey(agentId) });

  const invite = useInviteSubscriber(agentId, {
    onSuccess: (subscriber, address) => {
      toast({ title: 'Invitation Sent', description: `${subscriber?.email || address} has been invited.` });
      setEmail('');
      void refresh();
    },
    onError: (err) => {
      console.error('Error inviting user:', err);
      toast({ title: 'Error', description: toastMessage(err, 'Failed to invite user.'), variant: 'destructive', error: err });
    },
  });

  const revoke = useRevokeSubscriber(agentId, {
    onSuccess: (_, subscriber) => {
      toast({ title: 'Access Revoked', description: `${subscriber.email} no longer has access to this agent.` });
      void refresh();
    },
    onError: (err) => {
      console.error('Error revoking access:', err);
      toast({ title: 'Error', description: toastMessage(err, 'Failed to revoke access.'), variant: 'destructive', error: err });
    },
  });

  const resend = useResendInvitation(agentId, {
    onMutate: (subscriber) => setResendErrors(({ [subscriber.id]: _, ...rest }) => rest),
    onSuccess: (_, subscriber) => {
      toast({ title: INVITATION_TEXTS.resentTitle, description: INVITATION_TEXTS.resent(subscriber.email) });
    },
    onError: (err, subscriber) => {
      console.error('Error resending the invitation:', err);
      setResendErrors((errors) => ({ ...errors, [subscriber.id]: toastMessage(err, INVITATION_TEXTS.failed) }));
      void refresh(); // accepted meanwhile (400): the row shows it
    },
  });

  const onInvite = (event: FormEvent) => {
    event.preventDefault();
    const address = email.trim();
    if (!address) return;
    invite.mutate(address);
  };

  const columns: TableColumnsType<Subscriber> = [
    {
      title: 'Name',
      key: 'name',
      render: (_, s) => (
        <div className="subscriber-cell">
          <Avatar size={32} className="subscriber-cell__avatar" aria-hidden="true">
            {initialsOf(s.name, s.email)}
          </Avatar>
          <div className="agent-cell__text">
            {s.name && s.name !== s.email ? (
              <>
                <span className="agent-cell__name">{s.name}</span>
                <span className="agent-cell__description">{s.email}</span>
              </>
            ) : (
              // An invitee who has not signed up yet has no name of their own: show the e-mail once.
              <span className="agent-cell__name">{s.email}</span>
            )}
          </div>
        </div>
      ),
    },
    {
      title: 'Status',
      dataIndex: 'status',
      key: 'status',
      render: (status: string, s) => (
        <div className="subscriber-status">
          <Badge color={subscriberStatusColor(status)}>{status}</Badge>
          {status === 'invited' && (
            <>
              <span className="subscriber-status__note">{INVITATION_TEXTS.emailed}</span>
              <Button
                type="link"
                size="small"
                className="subscriber-status__resend"
                aria-label={INVITATION_TEXTS.resendLabel(s.email)}
                disabled={resend.isPending && resend.variables?.id === s.id}
                onClick={() => resend.mutate(s)}
              >
                {INVITATION_TEXTS.resend}
              </Button>
            </>
          )}
          {resendErrors[s.id] && (
            <span role="alert" className="subscriber-status__error">
              {resendErrors[s.id]}
            </span>
          )}
        </div>
      ),
    },
    {
      title: 'Joined',
      dataIndex: 'joinedDate',
      key: 'joinedDate',
      render: (date: string) => <time dateTime={date}>{formatJoined(date)}</time>,
    },
    {
      title: 'Usage',
      dataIndex: 'interactions',
      key: 'interactions',
      render: (n: number) => `${n ?? 0} ${(n ?? 0) === 1 ? 'interaction' : 'interactions'}`,
    },
    {
      title: SUBSCRIBER_CAP_TEXTS.column,
      key: 'cap',
      render: (_, s) => <SubscriberCapCell subscriber={s} defaultCapCents={defaultCapCents} onChange={setCapFor} />,
    },
    {
      title: <span className="sr-only">Actions</span>,
      key: 'actions',
      align: 'right',
      render: (_, s) => (
        <Button
          type="text"
          danger
          icon={<DeleteOutlined aria-hidden="true" />}
          aria-label={`Revoke access for ${s.email}`}
          title="Revoke access"
          disabled={revoke.isPending && revoke.variables?.id === s.id}
          onClick={() => revoke.mutate(s)}
        />
      ),
    },
  ];

  const inviteId = `agent-invite-${agentId}`;

  return (
    <div className="agent-editor__section">
      <form className="form-field" onSubmit={onInvite} noValidate aria-label="Invite a user">
        <label htmlFor={inviteId} className="form-field__label">
          Invite by email
        </label>
        <div className="agents-inline-form">
          <Input
            id={inviteId}
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="name@example.com"
            autoComplete="off"
          />
          <Button type="primary" htmlType="submit" disabled={invite.isPending || !email.trim()}>
            Invite
          </Button>
        </div>
      </form>

      <DefaultCapForm agentId={agentId} capCents={defaultCapCents} onSaved={onAgentSaved} />

      <Input
        className="agents-search"
        prefix={<SearchOutlined aria-hidden="true" />}
        placeholder="Search users..."
        aria-label="Search users"
        value={search}
        onChange={(e) => setSearch(e.target.value)}
        allowClear
      />

      {error ? (
        <p role="alert" className="agents-error">
          {error.message}
        </p>
      ) : (
        <Table<Subscriber>
          className="subscribers-table"
          rowKey="id"
          columns={columns}
          dataSource={filtered}
          loading={isPending && enabled}
          pagination={false}
          scroll={{ x: 'max-content' }}
          locale={{ emptyText: subscribers.length === 0 ? 'No users yet' : 'No results.' }}
        />
      )}
      <SubscriberCapDialog
        agentId={agentId}
        subscriber={capFor}
        defaultCapCents={defaultCapCents}
        onClose={() => setCapFor(null)}
      />
    </div>
  );
}
