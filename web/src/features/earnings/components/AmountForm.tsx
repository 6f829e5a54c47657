import { zodResolver } from '@hookform/resolvers/zod';
import { Button, InputNumber } from 'antd';
import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import type { z } from 'zod';
import { FormField, fieldA11y } from '@/components/FormField';
import type { AmountValues } from '../lib/schemas';

interface AmountFormProps {
  label: string;
  submitLabel: string;
  schema: z.ZodType<AmountValues, AmountValues>;
  busy: boolean;
  /** The server's refusal of the last try, shown under the field. */
  serverError?: string;
  onValid: (amount: number) => void;
  /** Called when the amount is edited (e.g. to clear a server message). */
  onEdit?: () => void;
}

/** One dollar amount (react-hook-form + zod), checked before `onValid`. */
export function AmountForm({ label, submitLabel, schema, busy, serverError, onValid, onEdit }: AmountFormProps) {
  const id = useId();
  const {
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<AmountValues>({ resolver: zodResolver(schema), defaultValues: { amount: null } });
  const message = errors.amount?.message ?? serverError;

  return (
    <form
      className="earnings-form"
      noValidate
      onSubmit={(e) => void handleSubmit((values) => values.amount !== null && onValid(values.amount))(e)}
    >
      <FormField id={id} label={label} error={message}>
        <Controller
          control={control}
          name="amount"
          render={({ field }) => (
            <InputNumber<number>
              {...fieldA11y(id, message)}
              className="earnings-form__input"
              precision={2}
              step={1}
              prefix={<span aria-hidden="true">$</span>}
              value={field.value}
              onChange={(v) => {
                field.onChange(typeof v === 'number' ? v : null);
                onEdit?.();
              }}
              onBlur={field.onBlur}
              ref={field.ref}
            />
          )}
        />
      </FormField>
      <Button type="primary" htmlType="submit" loading={busy}>
        {submitLabel}
      </Button>
    </form>
  );
}
