import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Input } from 'antd';
import { Controller, useForm } from 'react-hook-form';
import { FormField, fieldA11y } from '@/components/FormField';
import { useAuth } from '../auth-context';
import { registerSchema, type RegisterInput, type RegisterValues } from '../lib/schemas';

export function RegisterForm() {
  const { register } = useAuth();
  const {
    control,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<RegisterInput, unknown, RegisterValues>({
    resolver: zodResolver(registerSchema),
    defaultValues: { username: '', email: '', password: '', confirmPassword: '' },
  });

  const onSubmit = handleSubmit(async ({ email, password, username }) => {
    // confirmPassword is checked on the client only and never sent.
    try {
      await register({ email, password, username });
    } catch {
      // The provider has already logged the error and shown the 'Registration failed' toast.
    }
  });

  return (
    <form className="auth-form" onSubmit={onSubmit} noValidate aria-label="Register">
      <Controller
        control={control}
        name="username"
        render={({ field }) => (
          <FormField id="register-username" label="Username" error={errors.username?.message}>
            <Input
              {...field}
              {...fieldA11y('register-username', errors.username?.message)}
              type="text"
              autoComplete="username"
              size="large"
            />
          </FormField>
        )}
      />
      <Controller
        control={control}
        name="email"
        render={({ field }) => (
          <FormField id="register-email" label="Email" error={errors.email?.message}>
            <Input
              {...field}
              {...fieldA11y('register-email', errors.email?.message)}
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
          <FormField id="register-password" label="Password" error={errors.password?.message}>
            <Input
              {...field}
              {...fieldA11y('register-password', errors.password?.message)}
              type="password"
              autoComplete="new-password"
              size="large"
            />
          </FormField>
        )}
      />
      <Controller
        control={control}
        name="confirmPassword"
        render={({ field }) => (
          <FormField id="register-confirm-password" label="Confirm Password" error={errors.confirmPassword?.message}>
            <Input
              {...field}
              {...fieldA11y('register-confirm-password', errors.confirmPassword?.message)}
              type="password"
              autoComplete="new-password"
              size="large"
            />
          </FormField>
        )}
      />
      <Button type="primary" htmlType="submit" size="large" block disabled={isSubmitting}>
        {isSubmitting ? 'Creating account...' : 'Create account'}
      </Button>
    </form>
  );
}
