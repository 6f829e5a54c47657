import { GoogleOutlined, LoadingOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import { useAuth } from '../auth-context';

export function GoogleSignInButton() {
  const { googleSignIn } = useAuth();
  const [pending, setPending] = useState(false);

  const onClick = async () => {
    setPending(true);
    try {
      await googleSignIn();
    } catch {
      // The provider has already logged the error and shown the 'Google Sign-In failed' toast.
    } finally {
      setPending(false);
    }
  };

  return (
    <Button
      size="large"
      block
      onClick={onClick}
      disabled={pending}
      aria-busy={pending || undefined}
      icon={pending ? <LoadingOutlined spin aria-hidden="true" /> : <GoogleOutlined aria-hidden="true" />}
    >
      Google
    </Button>
  );
}
