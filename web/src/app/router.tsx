import { createBrowserRouter, type RouteObject } from 'react-router';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import { RouteError } from '@/components/RouteError';
import { ProtectedRoute } from '@/features/auth';

/**
 * Route table of spec §2. Every screen is a lazily loaded chunk, so `/` downloads only
 * the shell and the landing page (no antd: the other screens sit under the lazy AntdRoot).
 */
export const routes: RouteObject[] = [
  {
    path: '/',
    lazy: async () => ({ Component: (await import('@/features/landing/routes/LandingPage')).LandingPage }),
  },
  {
    // antd screens (everything but the landing page) get the antd theme from this lazy layout route.
    lazy: async () => ({ Component: (await import('./AntdRoot')).AntdRoot }),
    children: [
      {
        path: '/auth',
        lazy: async () => ({ Component: (await import('@/features/auth/routes/AuthPage')).AuthPage }),
      },
      {
        Component: ProtectedRoute,
        children: [
          {
            path: '/dashboard',
            lazy: async () => ({
              Component: (await import('@/features/dashboard-layout/DashboardLayout')).DashboardLayout,
            }),
            children: [
              {
                index: true,
                lazy: async () => ({ Component: (await import('@/features/dashboard/routes/DashboardHome')).DashboardHome }),
              },
              {
                path: 'agentic-users',
                lazy: async () => ({ Component: (await import('@/features/agents/routes/AgentsPage')).AgentsPage }),
                // The agent editor's addresses (issue 29): /dashboard/agentic-users/{id}[/{tab}]. AgentsPage reads
                // the params and shows the editor over the list, so switching tabs keeps the editor mounted.
                children: [{ path: ':agentId/:tab?', element: null }],
              },
              {
                path: 'shared',
                lazy: async () => ({
                  Component: (await import('@/features/agents/routes/SharedAgentsPage')).SharedAgentsPage,
                }),
              },
              {
                path: 'library',
                lazy: async () => ({
                  Component: (await import('@/features/library/routes/LibraryPage')).LibraryPage,
                }),
              },
              {
                path: 'marketplace',
                lazy: async () => ({
                  Component: (await import('@/features/marketplace/routes/MarketplacePage')).MarketplacePage,
                }),
              },
              {
                path: 'earnings',
                lazy: async () => ({
                  Component: (await import('@/features/earnings/routes/EarningsPage')).EarningsPage,
                }),
              },
              {
                path: 'wallet',
                lazy: async () => ({ Component: (await import('@/features/wallet/routes/WalletPage')).WalletPage }),
              },
              {
                path: 'account',
                lazy: async () => ({ Component: (await import('@/features/account/routes/AccountPage')).AccountPage }),
              },
            ],
          },
          {
            path: '/wallet',
            lazy: async () => ({
              Component: (await import('@/features/wallet/routes/WalletPage')).StandaloneWalletPage,
            }),
          },
        ],
      },
      {
        // The public marketplace (issue 27): only while the launch switch is on; otherwise the not-found screen.
        lazy: async () => ({
          Component: (await import('@/features/marketplace/components/MarketplaceGate')).MarketplaceGate,
        }),
        children: [
          {
            path: '/marketplace',
            lazy: async () => ({
              Component: (await import('@/features/marketplace/routes/PublicMarketplacePage')).PublicMarketplacePage,
            }),
          },
          {
            path: '/marketplace/:slug',
            lazy: async () => ({
              Component: (await import('@/features/marketplace/routes/AgentProfilePage')).AgentProfilePage,
            }),
          },
          {
            path: '/marketplace/:slug/chat',
            lazy: async () => ({
              Component: (await import('@/features/marketplace/routes/MarketplaceChatPage')).MarketplaceChatPage,
            }),
          },
        ],
      },
      {
        path: '*',
        lazy: async () => ({ Component: (await import('@/components/NotFound')).NotFound }),
      },
    ],
  },
];

function FirstLoadFallback() {
  return <LoadingSpinner />;
}

export function createAppRouter() {
  // The pathless root shows a spinner while the first route chunk downloads and catches route errors.
  return createBrowserRouter([{ HydrateFallback: FirstLoadFallback, ErrorBoundary: RouteError, children: routes }]);
}
