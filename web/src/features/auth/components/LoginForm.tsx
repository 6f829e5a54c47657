import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input } from 'antd';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { FormField, fieldA11y } from '@/components/FormField';
import { useAuth } from '../auth-context';
import { ForgotPasswordDialog, RESET_TEXTS } from './ForgotPasswordDialog';
import { loginSchema, type LoginInput, type LoginValues } from '../lib/schemas';

export function LoginForm() {
  const { login } = useAuth();
  const {
    control,
    handleSubmit,
    getValues,
    formState: { errors, isSubmitting },
  } = useForm<LoginInput, unknown, LoginValues>({
    resolver: zodResolver(loginSchema),
    defaultValues: { email: '', password: '' },
  });

  const [resetOpen, setResetOpen] = useState(false);

  const onSubmit = handleSubmit(async (values) => {
    try {
      await login(values.email, values.password);
    } catch {
      // The provider has already logged the error and shown the 'Login failed' toast.
    }
  });

  return (
    <>
      <form className="auth-form" onSubmit={onSubmit} noValidate aria-label="Login">
        <Controller
          control={control}
          name="email"
          render={({ field }) => (
            <FormField id="login-email" label="Email" error={errors.email?.message}>
              <Input
                {...field}
                {...fieldA11y('login-email', errors.email?.message)}
                type="email"
                autoComplete="email"
                placeholder="you@example.com"
                size="large"
              />
            </FormField>
          )}
        />
        <Controller
          control={control}
          name="password"
          render={({ field }) => (
            <FormField id="login-password" label="Password" error={errors.password?.message}>
              <Input
                {...field}
                {...fieldA11y('login-password', errors.password?.message)}
                type="password"
                autoComplete="current-password"
                size="large"
              />
            </FormField>
          )}
        />
        <div className="auth-forgot">
          <Button type="link" className="auth-forgot__link" onClick={() => setResetOpen(true)}>
            {RESET_TEXTS.link}
          </Button>
        </div>
        <Button type="primary" htmlType="submit" size="large" block disabled={isSubmitting}>
          {isSubmitting ? 'Signing in...' : 'Sign in'}
        </Button>
      </form>
      <ForgotPasswordDialog
        open={resetOpen}
        initialEmail={resetOpen ? getValues('email').trim() : ''}
        onClose={() => setResetOpen(false)}
      />
    </>
  );
}
