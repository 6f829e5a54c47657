import { CreditCardOutlined, ReloadOutlined } from '@ant-design/icons';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, InputNumber, Skeleton, Switch } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { FormField, fieldA11y } from '@/components/FormField';
import { toast } from '@/components/toast';
import {
  BILLING_MESSAGES,
  BillingApiError,
  startCardSetup,
  type BalanceDetails,
  type BillingSettings,
} from '../api/billing';
import { useBillingSettings, useSaveBillingSettings } from '../api/spend-controls';
import {
  SETTINGS_LABELS,
  SETTINGS_MESSAGES,
  spendControlsSchema,
  toBillingSettings,
  toFormValues,
  type SpendControlsValues,
} from '../lib/billing-settings';
import { formatMoney } from '../lib/format';


export const SPEND_TEXTS = {
  title: 'Spend controls',
  loading: 'Loading spend controls',
  saved: { title: 'Spend controls saved', description: 'Your spend controls were updated.' },
  saveFailedTitle: 'Spend controls not saved',
  setupFailedTitle: 'Card not saved',
  noCard: 'No card saved yet.',
  inFlight: 'A recharge is in progress.',
  limitHint: "Answers are refused once this month's usage reaches it; you are warned at 80% and 100%. Agent fees ($10.00 per agent per month) count within it too.",
  limitAutosave: 'Saved automatically.',
  limitSaving: 'Saving…',
  limitSaved: 'Saved',
  limitSaveFailed: 'Monthly spending limit not saved:',
} as const;

/** How long typing in the monthly limit pauses before it saves on its own (leaving the field saves at once). */
export const LIMIT_AUTOSAVE_DELAY_MS = 1500;

// No min/max on the input: it would clamp silently; the schema says what is wrong instead.
const moneyInput = {
  precision: 2,
  step: 1,
  prefix: <span aria-hidden="true">$</span>,
  className: 'spend-input',
} as const;

function saveErrorMessage(error: unknown): string {
  if (error instanceof BillingApiError && error.code === 'no_saved_card') return SETTINGS_MESSAGES.noCard;
  return error instanceof Error && error.message ? error.message : BILLING_MESSAGES.saveFailed;
}

interface FormProps {
  uid: string | undefined;
  settings: BillingSettings;
  balance: BalanceDetails | undefined;
}

function SpendControlsForm({ uid, settings, balance }: FormProps) {
  const auto = balance?.autoRecharge ?? null;
  const hasCard = auto?.hasCard ?? false;
  const [redirecting, setRedirecting] = useState(false);
  const {
    control,
    handleSubmit,
    reset,
    setValue,
    getValues,
    trigger,
    formState: { errors, isDirty },
  } = useForm<SpendControlsValues>({
    resolver: zodResolver(spendControlsSchema),
    defaultValues: toFormValues(settings, hasCard),
  });

  // New saved settings (a save, a refetch) replace the form's untouched fields (a field being edited keeps
  // its value: the monthly limit saves on its own while the rest may be mid-edit); a card saved meanwhile only
  // updates hasCard.
  useEffect(() => {
    reset(toFormValues(settings, hasCard), { keepDirtyValues: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- hasCard is synced by the effect below
  }, [settings, reset]);
  useEffect(() => {
    setValue('hasCard', hasCard, { shouldValidate: false });
  }, [hasCard, setValue]);

  const save = useSaveBillingSettings(uid, toBillingSettings, () => toast(SPEND_TEXTS.saved));

  // The monthly spending limit saves on its own (issue 29): after a pause in typing, or when the field is left.
  // Only the limit changes: the other settings are sent as saved (PUT replaces the whole object).
  const limitSave = useSaveBillingSettings(uid, (monthlyLimit: number | null) => ({ ...settings, monthlyLimit }));
  const { mutate: saveLimit } = limitSave;
  const savedLimit = settings.monthlyLimit ?? null;
  const limitTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const autosaveLimit = useCallback(async () => {
    clearTimeout(limitTimer.current);
    const value = getValues('monthlyLimit');
    const next = value === null || value === undefined ? null : Math.round(value * 100) / 100;
    if (next === savedLimit) return;
    if (!(await trigger('monthlyLimit'))) return;
    saveLimit(next);
  }, [getValues, trigger, saveLimit, savedLimit]);
  const cancelLimitAutosave = useCallback(() => clearTimeout(limitTimer.current), []);
  const limitValue = useWatch({ control, name: 'monthlyLimit' });
  useEffect(() => {
    const next = limitValue === null || limitValue === undefined ? null : Math.round(limitValue * 100) / 100;
    if (next === savedLimit) return undefined;
    limitTimer.current = setTimeout(() => void autosaveLimit(), LIMIT_AUTOSAVE_DELAY_MS);
    return () => clearTimeout(limitTimer.current);
  }, [limitValue, savedLimit, autosaveLimit]);

  const setupCard = async () => {
    setRedirecting(true);
    try {
      await startCardSetup();
      // The browser is leaving for Stripe: keep the button busy.
    } catch (error) {
      console.error('Card setup failed:', error);
      toast({
        title: SPEND_TEXTS.setupFailedTitle,
        description: error instanceof Error && error.message ? error.message : BILLING_MESSAGES.setupFailed,
        variant: 'destructive',
        error,
      });
      setRedirecting(false);
    }
  };

  // useWatch (not watch): a subscription React can memoise around (react-hooks/incompatible-library).
  const enabled = useWatch({ control, name: 'autoRecharge.enabled' });
  const thresholdError = errors.autoRecharge?.threshold?.message;
  const amountError = errors.autoRecharge?.amount?.message;
  const enabledError = errors.autoRecharge?.enabled?.message;

  return (
    <form
      className="spend-form"
      aria-label={SPEND_TEXTS.title}
      noValidate
      onSubmit={(event) =>
        void handleSubmit((values) => {
          // The whole form is saved: a pending autosave of the limit is not needed.
          cancelLimitAutosave();
          save.reset();
          save.mutate(values);
        })(event)
      }
    >
      <div className="spend-form__grid">
        <Controller
          control={control}
          name="monthlyLimit"
          render={({ field }) => (
            <FormField id="spend-monthly-limit" label={SETTINGS_LABELS.monthlyLimit} error={errors.monthlyLimit?.message}>
              <InputNumber<number>
                {...moneyInput}
                {...fieldA11y('spend-monthly-limit', errors.monthlyLimit?.message)}
                placeholder="No limit"
                value={field.value}
                onChange={(v) => field.onChange(v ?? null)}
                onBlur={(event) => {
                  field.onBlur();
                  // Leaving the field for "Save spend controls": that submit saves the limit with the rest (an
                  // autosave here would also move the button under the pointer as its status line appears).
                  const next = event.relatedTarget;
                  if (next instanceof HTMLButtonElement && next.type === 'submit' && next.form === event.currentTarget.form) {
                    cancelLimitAutosave();
                    return;
                  }
                  void autosaveLimit();
                }}
                ref={field.ref}
              />
              <p className="wallet-card__hint">
                {SPEND_TEXTS.limitHint}
                {balance?.monthUsage != null && ` Used this month: ${formatMoney(balance.monthUsage)}.`}{' '}
                {SPEND_TEXTS.limitAutosave}{' '}
                <span className="spend-autosave" role="status" data-testid="limit-autosave">
                  {limitSave.isPending ? SPEND_TEXTS.limitSaving : limitSave.isSuccess ? SPEND_TEXTS.limitSaved : ''}
                </span>
              </p>
              {limitSave.isError && (
                <p className="form-field__error" role="alert" data-testid="limit-autosave-error">
                  {SPEND_TEXTS.limitSaveFailed} {saveErrorMessage(limitSave.error)}
                </p>
              )}
            </FormField>
          )}
        />
        <Controller
          control={control}
          name="lowBalanceThreshold"
          render={({ field }) => (
            <FormField
              id="spend-low-balance"
              label={SETTINGS_LABELS.lowBalanceThreshold}
              error={errors.lowBalanceThreshold?.message}
            >
              <InputNumber<number>
                {...moneyInput}
                {...fieldA11y('spend-low-balance', errors.lowBalanceThreshold?.message)}
                placeholder="No warning"
                value={field.value}
                onChange={(v) => field.onChange(v ?? null)}
                onBlur={field.onBlur}
                ref={field.ref}
              />
              <p className="wallet-card__hint">You are warned when your available balance falls below it.</p>
            </FormField>
          )}
        />
      </div>

      <fieldset className="spend-auto">
        <legend className="form-field__label">Auto-recharge</legend>
        <div className="spend-auto__toggle">
          <Controller
            control={control}
            name="autoRecharge.enabled"
            render={({ field }) => (
              <Switch
                id="spend-auto-enabled"
                aria-label="Auto-recharge"
                aria-invalid={enabledError ? true : undefined}
                aria-describedby={enabledError ? 'spend-auto-enabled-error' : undefined}
                checked={field.value}
                onChange={(checked) => field.onChange(checked)}
                // No "On"/"Off" text inside: the state is the switch's own (aria-checked), and
                // visible text would have to be part of the name (WCAG 2.5.3).
              />
            )}
          />
          <span className="spend-auto__sentence">
            When my balance falls below
            <Controller
              control={control}
              name="autoRecharge.threshold"
              render={({ field }) => (
                <InputNumber<number>
                  {...moneyInput}
                  {...fieldA11y('spend-auto-threshold', thresholdError)}
                  aria-label={SETTINGS_LABELS.threshold}
                  // A greyed example, not a value (issue 29).
                  placeholder="e.g. 5.00"
                  value={field.value}
                  onChange={(v) => field.onChange(v ?? null)}
                  onBlur={field.onBlur}
                  ref={field.ref}
                />
              )}
            />
            , add
            <Controller
              control={control}
              name="autoRecharge.amount"
              render={({ field }) => (
                <InputNumber<number>
                  {...moneyInput}
                  {...fieldA11y('spend-auto-amount', amountError)}
                  aria-label={SETTINGS_LABELS.amount}
                  placeholder="e.g. 20.00"
                  value={field.value}
                  onChange={(v) => field.onChange(v ?? null)}
                  onBlur={field.onBlur}
                  ref={field.ref}
                />
              )}
            />
          </span>
        </div>
        {enabledError && (
          <p id="spend-auto-enabled-error" className="form-field__error">
            {enabledError}
          </p>
        )}
        {thresholdError && (
          <p id="spend-auto-threshold-error" className="form-field__error">
            {thresholdError}
          </p>
        )}
        {amountError && (
          <p id="spend-auto-amount-error" className="form-field__error">
            {amountError}
          </p>
        )}

        <div className="spend-card">
          <CreditCardOutlined aria-hidden="true" />
          <span className="spend-card__label" data-testid="saved-card">
            {hasCard ? (auto?.cardLabel ?? 'Card saved') : SPEND_TEXTS.noCard}
          </span>
          <Button onClick={() => void setupCard()} loading={redirecting} disabled={redirecting}>
            {hasCard ? 'Replace card' : 'Save a card'}
          </Button>
        </div>
        {auto?.inFlight && <p className="wallet-card__hint">{SPEND_TEXTS.inFlight}</p>}
        {auto?.disabledReason && (
          <Alert
            type="warning"
            showIcon
            title="Auto-recharge was turned off."
            description={auto.disabledReason}
            data-notice="auto_recharge_off"
          />
        )}
        {!auto?.disabledReason && enabled && auto?.lastFailure && (
          <Alert
            type="warning"
            showIcon
            title="The last auto-recharge failed."
            description={auto.lastFailure}
            data-notice="auto_recharge_failed"
          />
        )}
      </fieldset>

      {save.isError && (
        <Alert type="error" showIcon title={SPEND_TEXTS.saveFailedTitle} description={saveErrorMessage(save.error)} />
      )}
      <div className="spend-form__actions">
        <Button type="primary" htmlType="submit" loading={save.isPending} disabled={save.isPending}>
          Save spend controls
        </Button>
        {isDirty && !save.isPending && <span className="wallet-card__hint">Unsaved changes</span>}
      </div>
    </form>
  );
}

/**
 * Spend controls (docs/billing-api.md): monthly spending limit, low-balance threshold and auto-recharge
 * ("When my balance falls below $X, add $Y") with the saved card; validated like the server, saved with PUT.
 */
export function SpendControlsCard({ uid, balance }: { uid: string | undefined; balance: BalanceDetails | undefined }) {
  const settings = useBillingSettings(uid);
  let body;
  if (settings.isError) {
    body = (
      <div className="wallet-card__error" role="alert">
        <p>{BILLING_MESSAGES.loadFailed}</p>
        <Button icon={<ReloadOutlined aria-hidden="true" />} onClick={() => void settings.refetch()}>
          Try again
        </Button>
      </div>
    );
  } else if (!settings.data) {
    body = (
      <div role="status" aria-label={SPEND_TEXTS.loading} aria-busy="true">
        <Skeleton active paragraph={{ rows: 3 }} />
      </div>
    );
  } else {
    body = <SpendControlsForm uid={uid} settings={settings.data} balance={balance} />;
  }
  return (
    <section className="wallet-card wallet-card--wide" aria-labelledby="wallet-spend-title">
      <header className="wallet-card__header">
        <h2 id="wallet-spend-title" className="wallet-card__title">
          {SPEND_TEXTS.title}
        </h2>
      </header>
      {body}
    </section>
  );
}
