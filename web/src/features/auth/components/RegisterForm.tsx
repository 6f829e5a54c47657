import { zodResolver } from '@hookform/resolvers/zod';
import { Button } from 'antd';
import { useForm } from 'react-hook-form';
import { InputField } from '@/components/InputField';
import { useAuth } from '../auth-context';
import { registerSchema, type RegisterInput, type RegisterValues } from '../lib/schemas';

const FIELDS = [
  { name: 'username', id: 'register-username', label: 'Username', type: 'text', autoComplete: 'username' },
  { name: 'email', id: 'register-email', label: 'Email', type: 'email', autoComplete: 'email', placeholder: 'you@example.com' },
  { name: 'password', id: 'register-password', label: 'Password', type: 'password', autoComplete: 'new-password' },
  {
    name: 'confirmPassword',
    id: 'register-confirm-password',
    label: 'Confirm Password',
    type: 'password',
    autoComplete: 'new-password',
  },
] as const;

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
      {FIELDS.map((f) => (
        <InputField key={f.name} control={control} error={errors[f.name]?.message} {...f} />
      ))}
      <Button type="primary" htmlType="submit" size="large" block disabled={isSubmitting}>
        {isSubmitting ? 'Creating account...' : 'Create account'}
      </Button>
    </form>
  );
}
