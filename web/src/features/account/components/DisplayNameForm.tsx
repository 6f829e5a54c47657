import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input } from 'antd';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { z } from 'zod';
import { FormField, fieldA11y } from '@/components/FormField';
import { toast } from '@/components/toast';
import { useAuth } from '@/features/auth';
import { loadFirebase } from '@/lib/firebase';
import { ACCOUNT_TEXTS } from '../lib/texts';

const schema = z.object({
  displayName: z
    .string()
    .trim()
    .min(1, ACCOUNT_TEXTS.displayNameRequired)
    .max(100, ACCOUNT_TEXTS.displayNameTooLong),
});
type Input_ = z.input<typeof schema>;
type Values = z.output<typeof schema>;

/**
 * The display name: saved on the Firebase user (updateProfile) and then on the profile, through the onboarding
 * call that every sign-in makes (it takes the requested displayName).
 */
export function DisplayNameForm({ initial }: { initial: string }) {
  const { refreshUser } = useAuth();
  const [formError, setFormError] = useState<string>();
  const {
    control,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting, isDirty },
  } = useForm<Input_, unknown, Values>({ resolver: zodResolver(schema), defaultValues: { displayName: initial } });

  const onSubmit = handleSubmit(async ({ displayName }) => {
    setFormError(undefined);
    try {
      const { auth, updateProfile } = await loadFirebase();
      if (!auth.currentUser) throw new Error('Not signed in');
      await updateProfile(auth.currentUser, { displayName });
      await refreshUser();
      reset({ displayName });
      toast({ title: ACCOUNT_TEXTS.displayNameSaved, description: displayName });
    } catch (err) {
      console.error('Error saving the display name:', err);
      setFormError(ACCOUNT_TEXTS.displayNameFailed);
    }
  });

  return (
    <form className="account-form" onSubmit={onSubmit} noValidate>
      <Controller
        control={control}
        name="displayName"
        render={({ field }) => (
          <FormField id="account-display-name" label={ACCOUNT_TEXTS.displayNameLabel} error={errors.displayName?.message}>
            <Input
              {...field}
              {...fieldA11y('account-display-name', errors.displayName?.message)}
              autoComplete="nickname"
              maxLength={200}
            />
          </FormField>
        )}
      />
      {formError && (
        <p role="alert" className="form-field__error">
          {formError}
        </p>
      )}
      <div className="account-form__actions">
        <Button type="primary" htmlType="submit" disabled={isSubmitting || !isDirty}>
          {isSubmitting ? ACCOUNT_TEXTS.saving : ACCOUNT_TEXTS.save}
        </Button>
      </div>
    </form>
  );
}
