import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Toaster } from '@/components/toast';
import { AuthProvider } from '@/features/auth';
import { queryClient } from '@/lib/query-client';

/**
 * App-wide providers. antd's ConfigProvider is not here: it wraps the antd screens as the lazy
 * layout route `AntdRoot` (router.tsx), so the landing page's initial JS stays free of antd.
 */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        {children}
        <Toaster />
      </AuthProvider>
    </QueryClientProvider>
  );
}
