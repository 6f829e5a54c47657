import { lazy } from 'react';
import { LazyChunk } from '@/components/LazyChunk';
import type { ApiKeysPanelProps } from './ApiKeysPanel';

// Its own chunk, fetched the first time the API tab is opened.
const ApiKeysPanel = lazy(() => import('./ApiKeysPanel'));

/** ApiKeysPanel, lazily loaded. */
export function LazyApiKeysPanel(props: ApiKeysPanelProps) {
  return (
    <LazyChunk what="The API tab" className="agents-error">
      <ApiKeysPanel {...props} />
    </LazyChunk>
  );
}
