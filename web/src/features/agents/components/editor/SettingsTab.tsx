import { Button, Input } from 'antd';
import { PUBLIC_AGENTS_NOTE } from '../../constants';
import { ExpressInterestButton } from '../ExpressInterestButton';
import { AgentFeeStatus } from './AgentFeeNotice';
import { TagsInput } from './TagsInput';

export interface SettingsValues {
  status: string;
  isPublic: boolean;
  tags: string[];
  description: string;
}

interface SettingsTabProps {
  agentId: string;
  values: SettingsValues;
  onChange: (patch: Partial<SettingsValues>) => void;
}

/** Settings tab: Status, Visibility, Tags and Description (spec "Agent editor" → Settings). */
export function SettingsTab({ agentId, values, onChange }: SettingsTabProps) {
  const descriptionId = `agent-settings-description-${agentId}`;
  return (
    <div className="agent-editor__section agent-settings">
      <div className="form-field">
        <span className="form-field__label" id={`agent-status-label-${agentId}`}>
          Status
        </span>
        <div role="group" aria-labelledby={`agent-status-label-${agentId}`} className="agents-toggle-group">
          {(['active', 'inactive'] as const).map((status) => (
            <Button
              key={status}
              type={values.status === status ? 'primary' : 'default'}
              aria-pressed={values.status === status}
              onClick={() => onChange({ status })}
            >
              {status === 'active' ? 'Active' : 'Inactive'}
            </Button>
          ))}
        </div>
      </div>

      <div className="form-field">
        <span className="form-field__label" id={`agent-visibility-label-${agentId}`}>
          Visibility
        </span>
        <div role="group" aria-labelledby={`agent-visibility-label-${agentId}`} className="agents-toggle-group">
          <Button disabled aria-pressed={values.isPublic}>
            Public
          </Button>
          <Button
            type={values.isPublic ? 'default' : 'primary'}
            aria-pressed={!values.isPublic}
            onClick={() => onChange({ isPublic: false })}
          >
            Private
          </Button>
        </div>
        <p className="agents-muted agents-note">
          {PUBLIC_AGENTS_NOTE} <ExpressInterestButton withIdToken={false} />
        </p>
      </div>

      <TagsInput id={`agent-tags-${agentId}`} tags={values.tags} onChange={(tags) => onChange({ tags })} />

      <div className="form-field">
        <label htmlFor={descriptionId} className="form-field__label">
          Description
        </label>
        <Input.TextArea
          id={descriptionId}
          value={values.description}
          onChange={(e) => onChange({ description: e.target.value })}
          autoSize={{ minRows: 3, maxRows: 10 }}
        />
      </div>

      <AgentFeeStatus agentId={agentId} />
    </div>
  );
}
