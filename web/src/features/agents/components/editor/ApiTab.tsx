import { LazyApiKeysPanel } from '@/features/agent-api';

interface ApiTabProps {
  agentId: string;
  agentName: string;
  /** The key list loads only while the editor is open. */
  enabled: boolean;
}

/** API tab: the agent's API keys and paste-ready examples (features/agent-api, docs/agent-api.md). */
export function ApiTab({ agentId, agentName, enabled }: ApiTabProps) {
  return <LazyApiKeysPanel agentId={agentId} agentName={agentName} enabled={enabled} />;
}
