import { Input, Radio } from 'antd';
import { COLOR_OPTIONS, ICON_OPTIONS } from '../../constants';
import { MAX_AGENT_NAME } from '../../lib/schemas';
import type { AppearancePayload } from '../../types';
import { AgentIcon } from '../AgentIcon';

interface AppearanceFieldsProps {
  agentId: string;
  values: AppearancePayload;
  onChange: (patch: Partial<AppearancePayload>) => void;
  /** Messages at the fields (name, iconName, iconColor). */
  errors?: Record<string, string>;
}

/**
 * Settings: the agent's Name, Icon and Color (issue 29), with the Create dialog's pickers and rules; saved by
 * Save Changes.
 */
export function AppearanceFields({ agentId, values, onChange, errors = {} }: AppearanceFieldsProps) {
  const nameId = `agent-settings-name-${agentId}`;
  const nameError = errors.name;
  const iconLabel = `agent-settings-icon-label-${agentId}`;
  const colorLabel = `agent-settings-color-label-${agentId}`;

  return (
    <>
      <div className="form-field">
        <label htmlFor={nameId} className="form-field__label">
          Name
        </label>
        <Input
          id={nameId}
          value={values.name}
          onChange={(e) => onChange({ name: e.target.value })}
          maxLength={MAX_AGENT_NAME}
          autoComplete="off"
          status={nameError ? 'error' : undefined}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? `${nameId}-error` : undefined}
        />
        {nameError && (
          <p id={`${nameId}-error`} className="form-field__error">
            {nameError}
          </p>
        )}
      </div>

      <div className="form-field">
        <span className="form-field__label" id={iconLabel}>
          Icon
        </span>
        <Radio.Group
          aria-labelledby={iconLabel}
          name={`agent-settings-icon-${agentId}`}
          className="agents-picker"
          value={values.iconName}
          onChange={(e) => onChange({ iconName: e.target.value as string })}
          optionType="button"
        >
          {ICON_OPTIONS.map((option) => (
            <Radio.Button key={option.value} value={option.value} title={option.label} className="agents-picker__item">
              <AgentIcon iconName={option.value} iconColor="#374151" size="small" />
              <span className="sr-only">{option.label}</span>
            </Radio.Button>
          ))}
        </Radio.Group>
        {errors.iconName && <p className="form-field__error">{errors.iconName}</p>}
      </div>

      <div className="form-field">
        <span className="form-field__label" id={colorLabel}>
          Color
        </span>
        <Radio.Group
          aria-labelledby={colorLabel}
          name={`agent-settings-color-${agentId}`}
          className="agents-picker"
          value={values.iconColor.toUpperCase()}
          onChange={(e) => onChange({ iconColor: e.target.value as string })}
          optionType="button"
        >
          {COLOR_OPTIONS.map((option) => (
            <Radio.Button key={option.value} value={option.value} title={option.label} className="agents-picker__item">
              <span className="agents-swatch" style={{ backgroundColor: option.value }} aria-hidden="true" />
              <span className="sr-only">{option.label}</span>
            </Radio.Button>
          ))}
        </Radio.Group>
        {errors.iconColor && <p className="form-field__error">{errors.iconColor}</p>}
      </div>
    </>
  );
}
