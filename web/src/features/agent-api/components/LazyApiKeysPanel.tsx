import { Component, lazy, Suspense, type ReactNode } from 'react';
import { LoadingSpinner } from '@/components/LoadingSpinner';
import type { ApiKeysPanelProps } from './ApiKeysPanel';

// Its own chunk, fetched the first time the API tab is opened.
const ApiKeysPanel = lazy(() => import('./ApiKeysPanel'));

class ChunkErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    if (this.state.failed) {
      return (
        <div role="alert" className="agents-error">
          The API tab could not be loaded. Check your connection and reload the page.
        </div>
      );
    }
    return this.props.children;
  }
}

/** ApiKeysPanel, lazily loaded. */
export function LazyApiKeysPanel(props: ApiKeysPanelProps) {
  return (
    <ChunkErrorBoundary>
      <Suspense fallback={<LoadingSpinner fullPage={false} />}>
        <ApiKeysPanel {...props} />
      </Suspense>
    </ChunkErrorBoundary>
  );
}
