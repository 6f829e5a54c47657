import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { fetchMarketplaceStatus } from '@/features/marketplace/api/status';

// The marketplace launch switch (GET /api/marketplace/status) is off in every test unless the test turns it
// on (setMarketplaceEnabled in src/test/marketplace.ts): the spec's screens, and no extra request in the
// tests that count fetch calls.
vi.mock('@/features/marketplace/api/status', () => ({
  MARKETPLACE_STATUS_PATH: '/api/marketplace/status',
  fetchMarketplaceStatus: vi.fn(async () => ({ enabled: false })),
}));

beforeEach(() => {
  vi.mocked(fetchMarketplaceStatus).mockClear();
  vi.mocked(fetchMarketplaceStatus).mockImplementation(async () => ({ enabled: false }));
});

// Route screens are lazy chunks (two levels deep under AntdRoot) that Vite transforms on first use;
// on a busy machine that alone can exceed Testing Library's default 1 s for findBy*/waitFor.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
});

// antd relies on matchMedia (responsive observers), which jsdom lacks.
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }),
  });
}

// antd (rc-component/resize-observer) needs ResizeObserver, which jsdom lacks.
if (!('ResizeObserver' in globalThis)) {
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  Object.defineProperty(globalThis, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
}
