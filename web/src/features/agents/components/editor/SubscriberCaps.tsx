import { zodResolver } from '@hookform/resolvers/zod';
import { Button, InputNumber, Modal, Radio } from 'antd';
import { useEffect, useId } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { toast } from '@/components/toast';
import { fieldError, toastMessage, useUpdateSubscriberCap, useUpdateSubscriberCapDefault } from '../../api/agents';
import {
  CAP_TEXTS,
  defaultCapLabel,
  defaultCapSchema,
  formatCents,
  subscriberCapLabel,
  subscriberCapSchema,
  subscriberCapValues,
  toDefaultCapCents,
  toSubscriberCapPayload,
  type DefaultCapValues,
  type SubscriberCapValues,
} from '../../lib/caps';
import type { Agent, Subscriber } from '../../types';

export const DEFAULT_CAP_TEXTS = {
  save: 'Save cap',
  saving: 'Saving...',
  placeholder: 'No cap',
  /** Shown while the field differs from the saved cap: the editor's Save Changes does not save it. */
  unsaved: 'Not saved yet: press Save cap. Save Changes does not save the cap.',
  savedTitle: 'Monthly cap saved',
  failed: 'Failed to save the monthly cap.',
} as const;

export const SUBSCRIBER_CAP_TEXTS = {
  column: 'Monthly cap',
  change: 'Change',
  changeLabel: (who: string) => `Change monthly cap for ${who}`,
  title: (who: string) => `Monthly cap for ${who}`,
  group: 'Monthly cap',
  amount: 'Amount per month',
  cancel: 'Cancel',
  save: 'Save',
  saving: 'Saving...',
  savedTitle: 'Monthly cap changed',
  failed: 'Failed to change the monthly cap.',
} as const;

// No min/max on the inputs: they would clamp silently; the schema says what is wrong instead.
const moneyInput = {
  precision: 2,
  step: 1,
  prefix: <span aria-hidden="true">$</span>,
  className: 'subscriber-cap__input',
} as const;

const describedBy = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(' ') || undefined;

interface DefaultCapFormProps {
  agentId: string;
  /** The agent's saved default cap in cents; null or absent = no cap. */
  capCents: number | null | undefined;
  /** Called with the saved agent. */
  onSaved?: (agent: Agent) => void;
}

/**
 * "Monthly cap per subscriber": the default cap in dollars (empty = no cap), saved on its own with PATCH
 * /api/agents/{id} {subscriberMonthlyCapCents} by its Save cap button, never by the editor's Save Changes.
 */
export function DefaultCapForm({ agentId, capCents, onSaved }: DefaultCapFormProps) {
  const id = `agent-subscriber-cap-${agentId}`;
  const helpId = `${id}-help`;
  const save = useUpdateSubscriberCapDefault(agentId);
  const saved = capCents ?? null;
  const {
    control,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isDirty },
  } = useForm<DefaultCapValues>({
    resolver: zodResolver(defaultCapSchema),
    defaultValues: { cap: saved === null ? null : saved / 100 },
  });

  // A newly saved default (this form's save, a refetch) replaces the field.
  useEffect(() => {
    reset({ cap: saved === null ? null : saved / 100 });
  }, [saved, reset]);

  const error = errors.cap?.message;

  const onSubmit = handleSubmit((values) => {
    const cents = toDefaultCapCents(values);
    save.mutate(cents, {
      onSuccess: (agent) => {
        reset({ cap: cents === null ? null : cents / 100 });
        toast({
          title: DEFAULT_CAP_TEXTS.savedTitle,
          description:
            cents === null
              ? 'Subscribers on the default have no monthly cap.'
              : `Subscribers on the default cost you at most ${formatCents(cents)} a month each.`,
        });
        if (agent?.id) onSaved?.(agent);
      },
      onError: (err) => {
        const message = fieldError(err, 'subscriberMonthlyCapCents');
        if (message) {
          setError('cap', { type: 'server', message }, { shouldFocus: true });
          return;
        }
        console.error('Error saving the monthly cap:', err);
        toast({ title: 'Error', description: toastMessage(err, DEFAULT_CAP_TEXTS.failed), variant: 'destructive', error: err });
      },
    });
  });

  return (
    <form className="form-field subscriber-cap-form" onSubmit={onSubmit} noValidate aria-label={CAP_TEXTS.defaultLabel}>
      <label htmlFor={id} className="form-field__label">
        {CAP_TEXTS.defaultLabel}
      </label>
      <div className="agents-inline-form">
        <Controller
          control={control}
          name="cap"
          render={({ field }) => (
            <InputNumber<number>
              {...moneyInput}
              id={id}
              status={error ? 'error' : undefined}
              aria-invalid={error ? true : undefined}
              aria-describedby={describedBy(error && `${id}-error`, helpId)}
              placeholder={DEFAULT_CAP_TEXTS.placeholder}
              value={field.value}
              onChange={(v) => field.onChange(typeof v === 'number' ? v : null)}
              onBlur={field.onBlur}
              ref={field.ref}
              disabled={save.isPending}
            />
          )}
        />
        <Button type="primary" htmlType="submit" disabled={save.isPending}>
          {save.isPending ? DEFAULT_CAP_TEXTS.saving : DEFAULT_CAP_TEXTS.save}
        </Button>
      </div>
      {error && (
        <p id={`${id}-error`} className="form-field__error">
          {error}
        </p>
      )}
      <p id={helpId} className="agents-muted agents-note">
        {CAP_TEXTS.defaultHelp}
      </p>
      {isDirty && !save.isPending && (
        <p className="agents-note subscriber-cap-form__unsaved" role="status">
          {DEFAULT_CAP_TEXTS.unsaved}
        </p>
      )}
    </form>
  );
}

/** Who a subscriber is, for labels: the e-mail (unique in the list). */
const whoOf = (s: Subscriber) => s.email || s.name;

interface SubscriberCapCellProps {
  subscriber: Subscriber;
  defaultCapCents: number | null | undefined;
  onChange: (subscriber: Subscriber) => void;
}

/** A row's cap ("Default ($5.00)", "Default (no cap)", "No cap", "$2.00") and its Change button. */
export function SubscriberCapCell({ subscriber, defaultCapCents, onChange }: SubscriberCapCellProps) {
  return (
    <span className="subscriber-cap">
      <span data-testid="subscriber-cap">{subscriberCapLabel(subscriber, defaultCapCents)}</span>
      <Button
        type="link"
        size="small"
        className="subscriber-cap__change"
        aria-label={SUBSCRIBER_CAP_TEXTS.changeLabel(whoOf(subscriber))}
        onClick={() => onChange(subscriber)}
      >
        {SUBSCRIBER_CAP_TEXTS.change}
      </Button>
    </span>
  );
}

interface SubscriberCapDialogProps {
  agentId: string;
  /** The subscriber being changed; null = closed. */
  subscriber: Subscriber | null;
  defaultCapCents: number | null | undefined;
  onClose: () => void;
}

/**
 * "Monthly cap for <e-mail>": Default / No cap / Custom amount, saved with PATCH
 * /api/agents/{id}/subscribers/{subscriberId} {capMode, monthlyCapCents}.
 */
export function SubscriberCapDialog({ agentId, subscriber, defaultCapCents, onClose }: SubscriberCapDialogProps) {
  const title = subscriber ? SUBSCRIBER_CAP_TEXTS.title(whoOf(subscriber)) : '';
  return (
    <Modal open={subscriber !== null} onCancel={onClose} title={title} footer={null} destroyOnHidden width={440}>
      {subscriber && (
        <SubscriberCapForm
          key={subscriber.id}
          agentId={agentId}
          subscriber={subscriber}
          defaultCapCents={defaultCapCents}
          title={title}
          onDone={onClose}
        />
      )}
    </Modal>
  );
}

interface SubscriberCapFormProps {
  agentId: string;
  subscriber: Subscriber;
  defaultCapCents: number | null | undefined;
  title: string;
  onDone: () => void;
}

function SubscriberCapForm({ agentId, subscriber, defaultCapCents, title, onDone }: SubscriberCapFormProps) {
  const baseId = `subscriber-cap-${useId().replace(/:/g, '')}`;
  const groupLabelId = `${baseId}-group`;
  const amountId = `${baseId}-amount`;
  const change = useUpdateSubscriberCap(agentId);
  const {
    control,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<SubscriberCapValues>({
    resolver: zodResolver(subscriberCapSchema),
    defaultValues: subscriberCapValues(subscriber),
  });
  const mode = useWatch({ control, name: 'mode' });
  const modeError = errors.mode?.message;
  const amountError = errors.amount?.message;
  const pending = change.isPending;

  const onSubmit = handleSubmit((values) => {
    change.mutate(
      { subscriberId: subscriber.id, payload: toSubscriberCapPayload(values) },
      {
        onSuccess: (saved) => {
          const label = subscriberCapLabel({ ...subscriber, ...(saved ?? {}) }, defaultCapCents);
          toast({ title: SUBSCRIBER_CAP_TEXTS.savedTitle, description: `${whoOf(subscriber)}: ${label}.` });
          onDone();
        },
        onError: (err) => {
          const onMode = fieldError(err, 'capMode');
          const onAmount = fieldError(err, 'monthlyCapCents');
          if (onMode) setError('mode', { type: 'server', message: onMode });
          if (onAmount && values.mode === 'custom') setError('amount', { type: 'server', message: onAmount }, { shouldFocus: true });
          if (onMode || (onAmount && values.mode === 'custom')) return;
          console.error('Error changing the monthly cap:', err);
          toast({ title: 'Error', description: toastMessage(err, SUBSCRIBER_CAP_TEXTS.failed), variant: 'destructive', error: err });
        },
      },
    );
  });

  return (
    <form className="subscriber-cap-dialog" onSubmit={onSubmit} noValidate aria-label={title}>
      <div className="form-field">
        <span id={groupLabelId} className="form-field__label">
          {SUBSCRIBER_CAP_TEXTS.group}
        </span>
        <Controller
          control={control}
          name="mode"
          render={({ field }) => (
            <Radio.Group
              aria-labelledby={groupLabelId}
              aria-invalid={modeError ? true : undefined}
              aria-describedby={modeError ? `${baseId}-mode-error` : undefined}
              className="subscriber-cap-dialog__modes"
              vertical
              value={field.value}
              onChange={(e) => field.onChange(e.target.value)}
              disabled={pending}
            >
              <Radio value="default">{defaultCapLabel(defaultCapCents)}</Radio>
              <Radio value="none">{CAP_TEXTS.noCap}</Radio>
              <Radio value="custom">{CAP_TEXTS.custom}</Radio>
            </Radio.Group>
          )}
        />
        {modeError && (
          <p id={`${baseId}-mode-error`} className="form-field__error">
            {modeError}
          </p>
        )}
      </div>
      {mode === 'custom' && (
        <div className="form-field">
          <label htmlFor={amountId} className="form-field__label">
            {SUBSCRIBER_CAP_TEXTS.amount}
          </label>
          <Controller
            control={control}
            name="amount"
            render={({ field }) => (
              <InputNumber<number>
                {...moneyInput}
                id={amountId}
                status={amountError ? 'error' : undefined}
                aria-invalid={amountError ? true : undefined}
                aria-describedby={amountError ? `${amountId}-error` : undefined}
                placeholder="2.00"
                value={field.value}
                onChange={(v) => field.onChange(typeof v === 'number' ? v : null)}
                onBlur={field.onBlur}
                ref={field.ref}
                disabled={pending}
              />
            )}
          />
          {amountError && (
            <p id={`${amountId}-error`} className="form-field__error">
              {amountError}
            </p>
          )}
        </div>
      )}
      <div className="subscriber-cap-dialog__actions">
        <Button onClick={onDone} disabled={pending}>
          {SUBSCRIBER_CAP_TEXTS.cancel}
        </Button>
        <Button type="primary" htmlType="submit" disabled={pending}>
          {pending ? SUBSCRIBER_CAP_TEXTS.saving : SUBSCRIBER_CAP_TEXTS.save}
        </Button>
      </div>
    </form>
  );
}
