import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input, Modal, Radio, Switch } from 'antd';
import { Controller, useForm } from 'react-hook-form';
import { FormField, fieldA11y } from '@/components/FormField';
import { toast } from '@/components/toast';
import { useAuth } from '@/features/auth';
import { useMarketplaceEnabled } from '@/features/marketplace';
import { USER_NOT_AUTHENTICATED, fieldError, toastMessage, useCreateAgent } from '../api/agents';
import { CATEGORY_SUGGESTIONS, COLOR_OPTIONS, ICON_OPTIONS, PUBLIC_AGENTS_NOTE } from '../constants';
import {
  createAgentDefaults,
  createAgentSchema,
  type CreateAgentInput,
  type CreateAgentValues,
} from '../lib/schemas';
import type { Agent } from '../types';
import { AgentIcon } from './AgentIcon';
import { ExpressInterestButton } from './ExpressInterestButton';

interface CreateAgentDialogProps {
  open: boolean;
  onClose: () => void;
  /** Called with the new agent after the dialog closed (the page opens its editor, issue 29). */
  onCreated?: (agent: Agent) => void;
}

/** The fee line under the form (issue 29). */
export const AGENT_FEE_LINE = '$10/month per agent, charged with its first answer, plus usage';

/** 'Create New Agent' dialog (spec "Create New Agent dialog", §5 "Create agent"). */
export function CreateAgentDialog({ open, onClose, onCreated }: CreateAgentDialogProps) {
  return (
    <Modal
      open={open}
      onCancel={onClose}
      title="Create New Agent"
      footer={null}
      destroyOnHidden
      width={560}
      className="create-agent-modal"
    >
      {open && <CreateAgentForm onDone={onClose} onCreated={onCreated} />}
    </Modal>
  );
}

function CreateAgentForm({ onDone, onCreated }: { onDone: () => void; onCreated?: (agent: Agent) => void }) {
  const { user } = useAuth();
  const createAgent = useCreateAgent();
  const marketplace = useMarketplaceEnabled();
  const {
    control,
    handleSubmit,
    setError,
    formState: { errors },
  } = useForm<CreateAgentInput, unknown, CreateAgentValues>({
    resolver: zodResolver(createAgentSchema),
    defaultValues: createAgentDefaults,
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      if (!user) throw new Error(USER_NOT_AUTHENTICATED);
      const created = await createAgent.mutateAsync({
        name: values.name,
        description: values.description,
        category: values.category,
        isPublic: marketplace ? (values.isPublic ?? false) : false,
        iconName: values.iconName,
        iconColor: values.iconColor,
        userId: user.uid,
        instructions: '',
        tags: [],
      });
      toast({ title: 'Agent Created', description: 'Your new agent has been created successfully.' });
      onDone();
      if (created?.id) onCreated?.(created);
    } catch (error) {
      console.error('Error creating agent:', error);
      const visibility = fieldError(error, 'isPublic');
      if (visibility) setError('isPublic', { type: 'server', message: visibility });
      toast({ title: 'Error', description: toastMessage(error, 'Failed to create agent.'), variant: 'destructive', error });
    }
  });

  const pending = createAgent.isPending;

  return (
    <form className="create-agent-form" onSubmit={onSubmit} noValidate aria-label="Create New Agent">
      <Controller
        control={control}
        name="name"
        render={({ field }) => (
          <FormField id="agent-name" label="Name" error={errors.name?.message}>
            <Input {...field} {...fieldA11y('agent-name', errors.name?.message)} maxLength={100} placeholder="e.g. Physics Tutor" />
          </FormField>
        )}
      />
      <Controller
        control={control}
        name="description"
        render={({ field }) => (
          <FormField id="agent-description" label="Description" error={errors.description?.message}>
            <Input.TextArea
              {...field}
              {...fieldA11y('agent-description', errors.description?.message)}
              rows={3}
              maxLength={1000}
              placeholder="What does this agent know and do?"
            />
          </FormField>
        )}
      />
      <Controller
        control={control}
        name="category"
        render={({ field }) => (
          <FormField id="agent-category" label="Category" error={errors.category?.message}>
            <Input
              {...field}
              {...fieldA11y('agent-category', errors.category?.message)}
              list="agent-category-suggestions"
              maxLength={50}
              placeholder="e.g. Education"
              autoComplete="off"
            />
            <datalist id="agent-category-suggestions">
              {CATEGORY_SUGGESTIONS.map((c) => (
                <option key={c} value={c} />
              ))}
            </datalist>
          </FormField>
        )}
      />

      {marketplace ? (
        <Controller
          control={control}
          name="isPublic"
          render={({ field }) => (
            <div className="form-field">
              <span className="form-field__label" id="agent-visibility-label">
                Visibility
              </span>
              <div className="agents-visibility">
                <Switch
                  checked={field.value === true}
                  onChange={(checked) => field.onChange(checked)}
                  // The name holds the visible "Private" / "Public" (WCAG 2.5.3, label in name).
                  aria-label={`Visibility: ${field.value ? 'Public' : 'Private'}`}
                  aria-invalid={errors.isPublic ? true : undefined}
                  aria-describedby={errors.isPublic ? 'agent-visibility-error' : undefined}
                  checkedChildren="Public"
                  unCheckedChildren="Private"
                />
              </div>
              {errors.isPublic?.message && (
                <p id="agent-visibility-error" className="form-field__error">
                  {errors.isPublic.message}
                </p>
              )}
            </div>
          )}
        />
      ) : (
        <div className="form-field">
          <span className="form-field__label" id="agent-visibility-label">
            Visibility
          </span>
          <div className="agents-visibility">
            <Switch
              disabled
              checked={false}
              // The name holds the visible "Private" (WCAG 2.5.3, label in name).
              aria-label="Visibility: Private"
              checkedChildren="Public"
              unCheckedChildren="Private"
            />
            <span className="agents-muted">
              {PUBLIC_AGENTS_NOTE} <ExpressInterestButton withIdToken />
            </span>
          </div>
        </div>
      )}

      <Controller
        control={control}
        name="iconName"
        render={({ field }) => (
          <div className="form-field">
            <span className="form-field__label" id="agent-icon-label">
              Icon
            </span>
            <Radio.Group
              aria-labelledby="agent-icon-label"
              name="iconName"
              className="agents-picker"
              value={field.value}
              onChange={(e) => field.onChange(e.target.value)}
              optionType="button"
            >
              {ICON_OPTIONS.map((option) => (
                <Radio.Button key={option.value} value={option.value} title={option.label} className="agents-picker__item">
                  <AgentIcon iconName={option.value} iconColor="#374151" size="small" />
                  <span className="sr-only">{option.label}</span>
                </Radio.Button>
              ))}
            </Radio.Group>
          </div>
        )}
      />
      <Controller
        control={control}
        name="iconColor"
        render={({ field }) => (
          <div className="form-field">
            <span className="form-field__label" id="agent-color-label">
              Color
            </span>
            <Radio.Group
              aria-labelledby="agent-color-label"
              name="iconColor"
              className="agents-picker"
              value={field.value}
              onChange={(e) => field.onChange(e.target.value)}
              optionType="button"
            >
              {COLOR_OPTIONS.map((option) => (
                <Radio.Button key={option.value} value={option.value} title={option.label} className="agents-picker__item">
                  <span className="agents-swatch" style={{ backgroundColor: option.value }} aria-hidden="true" />
                  <span className="sr-only">{option.label}</span>
                </Radio.Button>
              ))}
            </Radio.Group>
          </div>
        )}
      />

      {/* The monthly fee, disclosed before it is due (issue 29). */}
      <p className="agents-muted" data-testid="create-agent-fee">
        {AGENT_FEE_LINE}
      </p>

      <div className="create-agent-form__actions">
        <Button onClick={onDone} disabled={pending}>
          Cancel
        </Button>
        <Button type="primary" htmlType="submit" disabled={pending}>
          {pending ? 'Creating...' : 'Create Agent'}
        </Button>
      </div>
    </form>
  );
}
