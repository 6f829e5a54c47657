import { Input, InputNumber, Switch } from 'antd';
import {
  MAX_GREETING_LENGTH,
  SLUG_PENDING_TEXT,
  type ListingValues,
} from '../../lib/listing';

export const MARKETPLACE_SETTINGS_TEXTS = {
  heading: 'Marketplace',
  lead: 'How your agent appears in the marketplace and what its users pay. Saved with Save Changes.',
  slug: 'Slug',
  viewProfile: 'View its marketplace profile',
  markup: 'Markup (%)',
  markupHelp:
    'Your share on top of the model cost: a whole number from 0 to 300 percent. You keep 100% of your markup (and of the greeting cost); the platform adds its own 3% service fee.',
  greetingCost: 'Greeting cost',
  greetingCostHelp: 'A fixed price for starting a conversation, from $0.00 to $5.00.',
  greeting: 'Greeting',
  greetingHelp: "The agent's first message in every new conversation (free), at most 500 characters.",
  memory: 'Memory (tokens)',
  memoryHelp: 'How much of the conversation the agent keeps in mind, from 0 to 32,000 tokens.',
  showSources: 'Show sources',
  showSourcesHelp: 'On: users see the passages behind an answer. Off: only the document names.',
} as const;

interface MarketplaceSettingsProps {
  agentId: string;
  slug: string | null;
  values: ListingValues;
  onChange: (patch: Partial<ListingValues>) => void;
  /** Field name (PATCH member) → message. */
  errors: Record<string, string>;
}

const describedBy = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(' ') || undefined;

/**
 * The Settings tab's "Marketplace" section (issue 27), shown when Public is chosen while the marketplace is on:
 * the read-only slug and the listing fields. No min/max on the number inputs: they would clamp silently; the
 * message says what is wrong instead.
 */
export function MarketplaceSettings({ agentId, slug, values, onChange, errors }: MarketplaceSettingsProps) {
  const T = MARKETPLACE_SETTINGS_TEXTS;
  const id = (field: string) => `agent-listing-${field}-${agentId}`;
  const headingId = id('heading');

  /** The a11y attributes of a field with a help text and maybe an error. */
  const a11y = (field: string, error?: string) => ({
    id: id(field),
    status: error ? ('error' as const) : undefined,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy(error && `${id(field)}-error`, `${id(field)}-help`),
  });

  const help = (field: string, text: string) => (
    <p id={`${id(field)}-help`} className="agents-muted agents-note">
      {text}
    </p>
  );
  const error = (field: string, message?: string) =>
    message ? (
      <p id={`${id(field)}-error`} className="form-field__error">
        {message}
      </p>
    ) : null;

  return (
    <section className="agent-listing" aria-labelledby={headingId}>
      <h3 id={headingId} className="agent-listing__title">
        {T.heading}
      </h3>
      <p className="agents-muted agent-listing__lead">{T.lead}</p>

      <div className="form-field">
        <span className="form-field__label" id={id('slug-label')}>
          {T.slug}
        </span>
        {slug ? (
          <p className="agent-listing__slug" aria-labelledby={id('slug-label')}>
            <code data-testid="agent-slug">{slug}</code>{' '}
            {/* A plain link (new tab): the editor keeps its unsaved changes. */}
            <a href={`/marketplace/${encodeURIComponent(slug)}`} target="_blank" rel="noopener noreferrer">
              {T.viewProfile}
            </a>
          </p>
        ) : (
          <p className="agents-muted agent-listing__slug" aria-labelledby={id('slug-label')} data-testid="agent-slug">
            {SLUG_PENDING_TEXT}
          </p>
        )}
      </div>

      <div className="agent-listing__grid">
        <div className="form-field">
          <label htmlFor={id('markupPercent')} className="form-field__label">
            {T.markup}
          </label>
          <InputNumber<number>
            {...a11y('markupPercent', errors.markupPercent)}
            className="agent-listing__number"
            style={{ width: '100%' }}
            precision={0}
            step={5}
            suffix={<span aria-hidden="true">%</span>}
            value={values.markupPercent}
            onChange={(v) => onChange({ markupPercent: typeof v === 'number' ? v : null })}
          />
          {help('markupPercent', T.markupHelp)}
          {error('markupPercent', errors.markupPercent)}
        </div>

        <div className="form-field">
          <label htmlFor={id('greetingCostCents')} className="form-field__label">
            {T.greetingCost}
          </label>
          <InputNumber<number>
            {...a11y('greetingCostCents', errors.greetingCostCents)}
            className="agent-listing__number"
            style={{ width: '100%' }}
            precision={2}
            step={0.05}
            prefix={<span aria-hidden="true">$</span>}
            value={values.greetingCost}
            onChange={(v) => onChange({ greetingCost: typeof v === 'number' ? v : null })}
          />
          {help('greetingCostCents', T.greetingCostHelp)}
          {error('greetingCostCents', errors.greetingCostCents)}
        </div>

        <div className="form-field">
          <label htmlFor={id('memoryTokens')} className="form-field__label">
            {T.memory}
          </label>
          <InputNumber<number>
            {...a11y('memoryTokens', errors.memoryTokens)}
            className="agent-listing__number"
            style={{ width: '100%' }}
            precision={0}
            step={500}
            value={values.memoryTokens}
            onChange={(v) => onChange({ memoryTokens: typeof v === 'number' ? v : null })}
          />
          {help('memoryTokens', T.memoryHelp)}
          {error('memoryTokens', errors.memoryTokens)}
        </div>
      </div>

      <div className="form-field">
        <label htmlFor={id('greeting')} className="form-field__label">
          {T.greeting}
        </label>
        <Input.TextArea
          {...a11y('greeting', errors.greeting)}
          value={values.greeting}
          onChange={(e) => onChange({ greeting: e.target.value })}
          maxLength={MAX_GREETING_LENGTH}
          showCount
          autoSize={{ minRows: 2, maxRows: 6 }}
        />
        {help('greeting', T.greetingHelp)}
        {error('greeting', errors.greeting)}
      </div>

      <div className="form-field">
        <div className="agent-listing__switch">
          <Switch
            id={id('showSources')}
            checked={values.showSources}
            onChange={(checked) => onChange({ showSources: checked })}
            aria-describedby={describedBy(errors.showSources && `${id('showSources')}-error`, `${id('showSources')}-help`)}
          />
          <label htmlFor={id('showSources')} className="form-field__label">
            {T.showSources}
          </label>
        </div>
        {help('showSources', T.showSourcesHelp)}
        {error('showSources', errors.showSources)}
      </div>
    </section>
  );
}
