import { CloseOutlined } from '@ant-design/icons';
import { Button, Input } from 'antd';
import { addLabel, MAX_LABEL_LENGTH, removeLabel } from '../lib/labels';

interface LabelsInputProps {
  id: string;
  labels: readonly string[];
  onChange: (labels: string[]) => void;
  /** The text typed but not added yet (the dialog adds it on submit). */
  draft: string;
  onDraftChange: (draft: string) => void;
  error: string | null;
  onError: (error: string | null) => void;
  disabled?: boolean;
}

/** Labels (spec §5 "Labels"): an input with Add or Enter, and removable badges. */
export function LabelsInput({ id, labels, onChange, draft, onDraftChange, error, onError, disabled }: LabelsInputProps) {
  const commit = () => {
    const result = addLabel(labels, draft);
    onError(result.error);
    if (result.error) return;
    if (result.labels !== labels) onChange([...result.labels]);
    onDraftChange('');
  };

  return (
    <div className="form-field">
      <label htmlFor={id} className="form-field__label">
        Labels
      </label>
      <div className="documents-inline-form">
        <Input
          id={id}
          value={draft}
          onChange={(e) => {
            onDraftChange(e.target.value);
            if (error) onError(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              commit();
            }
          }}
          maxLength={MAX_LABEL_LENGTH}
          placeholder="e.g. week1, then Enter"
          autoComplete="off"
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          status={error ? 'error' : undefined}
        />
        <Button onClick={commit} disabled={disabled}>
          Add
        </Button>
      </div>
      {error && (
        <p id={`${id}-error`} className="form-field__error">
          {error}
        </p>
      )}
      {labels.length > 0 && (
        <ul className="documents-labels documents-labels--editable" aria-label="Labels added">
          {labels.map((label) => (
            <li key={label} className="documents-badge documents-badge--gray">
              <span>{label}</span>
              <button
                type="button"
                className="documents-badge__remove"
                aria-label={`Remove label ${label}`}
                onClick={() => onChange(removeLabel(labels, label))}
                disabled={disabled}
              >
                <CloseOutlined aria-hidden="true" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
