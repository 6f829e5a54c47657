/** The agent API's web side: the API tab's panel (lazy) and its contract types. */
export { LazyApiKeysPanel } from './components/LazyApiKeysPanel';
export type { ApiKeysPanelProps } from './components/ApiKeysPanel';
export type { ApiKey, CreatedApiKey, NewApiKeyPayload } from './types';
