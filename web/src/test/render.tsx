import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider, type InitialEntry } from 'react-router';
import { vi } from 'vitest';
import { routes } from '@/app/router';
import { Toaster } from '@/components/toast';
import { AuthContext, type AuthContextValue } from '@/features/auth/auth-context';
import { createQueryClient } from '@/lib/query-client';

export function authValue(overrides: Partial<AuthContextValue> = {}): AuthContextValue {
  return {
    user: null,
    loading: false,
    profileLoading: false,
    error: null,
    login: vi.fn(async () => {}),
    register: vi.fn(async () => {}),
    googleSignIn: vi.fn(async () => {}),
    logout: vi.fn(async () => {}),
    refreshUser: vi.fn(async () => {}),
    ...overrides,
  };
}

/**
 * Renders the real route table at `path` (a path, or an entry with router state) with a given auth context
 * (and a fresh QueryClient).
 */
export function renderApp(path: InitialEntry, auth: AuthContextValue = authValue()) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const queryClient = createQueryClient();
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <AuthContext.Provider value={auth}>
        <RouterProvider router={router} />
        <Toaster />
      </AuthContext.Provider>
    </QueryClientProvider>,
  );
  return { ...utils, router, auth, queryClient };
}
