import { CloseOutlined } from '@ant-design/icons';
import { Button, Input } from 'antd';
import { useState } from 'react';
import { addTag, removeTag } from '../../lib/tags';

interface TagsInputProps {
  id: string;
  tags: readonly string[];
  onChange: (tags: string[]) => void;
}

/** Tags (spec "Settings"): Enter or Add adds (trimmed, blank and duplicates ignored); badges are removable. */
export function TagsInput({ id, tags, onChange }: TagsInputProps) {
  const [draft, setDraft] = useState('');

  const commit = () => {
    const next = addTag(tags, draft);
    if (next !== tags) onChange([...next]);
    setDraft('');
  };

  return (
    <div className="form-field">
      <label htmlFor={id} className="form-field__label">
        Tags
      </label>
      <div className="agents-inline-form">
        <Input
          id={id}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              commit();
            }
          }}
          maxLength={40}
          placeholder="Add a tag and press Enter"
        />
        <Button onClick={commit}>Add</Button>
      </div>
      {tags.length > 0 && (
        <ul className="agents-tag-list">
          {tags.map((tag) => (
            <li key={tag} className="agent-badge agent-badge--gray agents-tag-list__item">
              <span>{tag}</span>
              <button
                type="button"
                className="agents-tag-list__remove"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(removeTag(tags, tag))}
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
