import { Input } from 'antd';
import { Controller, type Control, type FieldValues, type Path } from 'react-hook-form';
import { FormField, fieldA11y } from './FormField';

interface InputFieldProps<TInput extends FieldValues, TValues extends FieldValues> {
  control: Control<TInput, unknown, TValues>;
  name: Path<TInput>;
  /** The control's id; the label points at it and the error is `${id}-error`. */
  id: string;
  label: string;
  error?: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  placeholder?: string;
}

/**
 * A react-hook-form text field: a labelled large antd Input with its validation message
 * (FormField + fieldA11y), the shape every sign-in and sign-up field has.
 */
export function InputField<TInput extends FieldValues, TValues extends FieldValues>({
  control,
  name,
  id,
  label,
  error,
  type = 'text',
  autoComplete,
  placeholder,
}: InputFieldProps<TInput, TValues>) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <FormField id={id} label={label} error={error}>
          <Input
            {...field}
            {...fieldA11y(id, error)}
            type={type}
            autoComplete={autoComplete}
            placeholder={placeholder}
            size="large"
          />
        </FormField>
      )}
    />
  );
}
