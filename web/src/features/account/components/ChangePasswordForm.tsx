import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input } from 'antd';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { z } from 'zod';
import { FormField, fieldA11y } from '@/components/FormField';
import { toast } from '@/components/toast';
import { MESSAGES } from '@/features/auth';
import { loadFirebase } from '@/lib/firebase';
import { passwordError } from '../lib/password-errors';
import { ACCOUNT_TEXTS } from '../lib/texts';

const schema = z
  .object({
    currentPassword: z.string().min(1, ACCOUNT_TEXTS.currentPasswordRequired),
    newPassword: z.string().min(6, MESSAGES.password),
    confirmPassword: z.string(),
  })
  .refine((v) => v.newPassword === v.confirmPassword, {
    message: MESSAGES.passwordsMismatch,
    path: ['confirmPassword'],
  });
type Values = z.infer<typeof schema>;

const FIELDS = [
  { name: 'currentPassword', id: 'account-current-password', label: ACCOUNT_TEXTS.currentPasswordLabel, autoComplete: 'current-password' },
  { name: 'newPassword', id: 'account-new-password', label: ACCOUNT_TEXTS.newPasswordLabel, autoComplete: 'new-password' },
  { name: 'confirmPassword', id: 'account-confirm-password', label: ACCOUNT_TEXTS.confirmPasswordLabel, autoComplete: 'new-password' },
] as const;

/**
 * Change password: the current password reauthenticates (reauthenticateWithCredential), then updatePassword.
 * A wrong current password is shown on its field.
 */
export function ChangePasswordForm({ email }: { email: string }) {
  const [formError, setFormError] = useState<string>();
  const {
    control,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<Values>({
    resolver: zodResolver(schema),
    defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
  });

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    setFormError(undefined);
    try {
      const { auth, EmailAuthProvider, reauthenticateWithCredential, updatePassword } = await loadFirebase();
      const current = auth.currentUser;
      if (!current) throw new Error('Not signed in');
      await reauthenticateWithCredential(current, EmailAuthProvider.credential(email, currentPassword));
      await updatePassword(current, newPassword);
      reset();
      toast({ title: ACCOUNT_TEXTS.passwordChanged, description: ACCOUNT_TEXTS.passwordChangedBody });
    } catch (err) {
      const { field, message } = passwordError(err);
      if (field === 'form') {
        console.error('Error changing the password:', err);
        setFormError(message);
      } else {
        setError(field, { message }, { shouldFocus: true });
      }
    }
  });

  return (
    <form className="account-form" onSubmit={onSubmit} noValidate aria-label={ACCOUNT_TEXTS.passwordHeading}>
      {/* Lets password managers tie the new password to the account. */}
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      {FIELDS.map((f) => (
        <Controller
          key={f.name}
          control={control}
          name={f.name}
          render={({ field }) => (
            <FormField id={f.id} label={f.label} error={errors[f.name]?.message}>
              <Input.Password {...field} {...fieldA11y(f.id, errors[f.name]?.message)} autoComplete={f.autoComplete} />
            </FormField>
          )}
        />
      ))}
      {formError && (
        <p role="alert" className="form-field__error">
          {formError}
        </p>
      )}
      <div className="account-form__actions">
        <Button type="primary" htmlType="submit" disabled={isSubmitting}>
          {isSubmitting ? ACCOUNT_TEXTS.changingPassword : ACCOUNT_TEXTS.changePassword}
        </Button>
      </div>
    </form>
  );
}
