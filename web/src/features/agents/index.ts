export { AGENTS_QUERY_KEY, ApiMessageError, fetchAgents, fieldError, messageErrorOf, useAgents } from './api/agents';
export { AgentIcon } from './components/AgentIcon';
export type { Agent } from './types';
