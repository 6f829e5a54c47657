import { zodResolver } from '@hookform/resolvers/zod';
import { Button } from 'antd';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { InputField } from '@/components/InputField';
import { useAuth } from '../auth-context';
import { ForgotPasswordDialog, RESET_TEXTS } from './ForgotPasswordDialog';
import { loginSchema, type LoginInput, type LoginValues } from '../lib/schemas';

const FIELDS = [
  { name: 'email', id: 'login-email', label: 'Email', type: 'email', autoComplete: 'email', placeholder: 'you@example.com' },
  { name: 'password', id: 'login-password', label: 'Password', type: 'password', autoComplete: 'current-password' },
] as const;

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
        {FIELDS.map((f) => (
          <InputField key={f.name} control={control} error={errors[f.name]?.message} {...f} />
        ))}
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
