import { Button, Input } from 'antd';
import { PUBLIC_AGENTS_NOTE } from '../../constants';
import type { ListingValues } from '../../lib/listing';
import type { AppearancePayload } from '../../types';
import { ExpressInterestButton } from '../ExpressInterestButton';
import { AgentFeeStatus } from './AgentFeeNotice';
import { AppearanceFields } from './AppearanceFields';
import { DeleteAgentSection } from './DeleteAgentSection';
import { MarketplaceSettings } from './MarketplaceSettings';
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
  /** The marketplace launch switch: on, Public can be chosen and the Marketplace section appears with it. */
  marketplace?: boolean;
  /** The agent's marketplace address (null until its first publish). */
  slug?: string | null;
  listing?: ListingValues;
  onListingChange?: (patch: Partial<ListingValues>) => void;
  /** Messages at the fields (field name → message): the editor's checks and the server's. */
  errors?: Record<string, string>;
  /** Name, icon and colour (issue 29): shown first when given. */
  appearance?: AppearancePayload;
  onAppearanceChange?: (patch: Partial<AppearancePayload>) => void;
  /** The agent's saved name: the Delete agent confirmation asks for it. Without it, no Delete agent section. */
  agentName?: string;
  /** Called once the agent has been deleted. */
  onDeleted?: () => void;
}

const LISTING_FIELDS = ['markupPercent', 'greetingCostCents', 'greeting', 'memoryTokens', 'showSources'];

/**
 * Settings tab: Status, Visibility, Tags and Description (spec "Agent editor" → Settings). With the marketplace
 * on (issue 27), Visibility offers Public and Private, and choosing Public shows the Marketplace section.
 * Issue 29: Name, Icon and Color first, and the Delete agent section last.
 */
export function SettingsTab({
  agentId,
  values,
  onChange,
  marketplace = false,
  slug = null,
  listing,
  onListingChange,
  errors = {},
  appearance,
  onAppearanceChange,
  agentName,
  onDeleted,
}: SettingsTabProps) {
  const descriptionId = `agent-settings-description-${agentId}`;
  const visibilityErrorId = `agent-visibility-error-${agentId}`;
  const descriptionError = errors.description;
  // A problem in the section keeps it in view even after switching back to Private.
  const showListing =
    marketplace && listing && onListingChange && (values.isPublic || LISTING_FIELDS.some((f) => errors[f]));

  return (
    <div className="agent-editor__section agent-settings">
      {appearance && onAppearanceChange && (
        <AppearanceFields agentId={agentId} values={appearance} onChange={onAppearanceChange} errors={errors} />
      )}

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
        {errors.status && <p className="form-field__error">{errors.status}</p>}
      </div>

      <div className="form-field">
        <span className="form-field__label" id={`agent-visibility-label-${agentId}`}>
          Visibility
        </span>
        {marketplace ? (
          <div
            role="group"
            aria-labelledby={`agent-visibility-label-${agentId}`}
            aria-describedby={errors.isPublic ? visibilityErrorId : undefined}
            className="agents-toggle-group"
          >
            <Button
              type={values.isPublic ? 'primary' : 'default'}
              aria-pressed={values.isPublic}
              onClick={() => onChange({ isPublic: true })}
            >
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
        ) : (
          <>
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
          </>
        )}
        {errors.isPublic && (
          <p id={visibilityErrorId} className="form-field__error" role="alert">
            {errors.isPublic}
          </p>
        )}
      </div>

      {showListing && (
        <MarketplaceSettings agentId={agentId} slug={slug} values={listing} onChange={onListingChange} errors={errors} />
      )}

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
          status={descriptionError ? 'error' : undefined}
          aria-invalid={descriptionError ? true : undefined}
          aria-describedby={descriptionError ? `${descriptionId}-error` : undefined}
        />
        {descriptionError && (
          <p id={`${descriptionId}-error`} className="form-field__error">
            {descriptionError}
          </p>
        )}
      </div>

      <AgentFeeStatus agentId={agentId} />

      {agentName !== undefined && <DeleteAgentSection agentId={agentId} agentName={agentName} onDeleted={onDeleted} />}
    </div>
  );
}
