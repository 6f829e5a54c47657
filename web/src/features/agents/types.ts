/** Entities of spec §3 ("Agent", "Subscriber") as the catalog service returns them. */
export type AgentStatus = 'active' | 'inactive' | 'pending';

export interface Agent {
  id: string;
  userId: string;
  name: string;
  description: string;
  category: string;
  /** Normally one of AgentStatus; anything else is shown with a gray badge. */
  status: AgentStatus | (string & {});
  isPublic: boolean;
  iconName: string;
  iconColor: string;
  instructions: string;
  tags: string[];
  /** Subscriber count. */
  subscribers: number;
  totalInteractions: number;
  /** The agent's own unique e-mail address. */
  email: string;
  createdAt: string;
  updatedAt: string;
}

/** POST /api/agents body (spec §7). */
export interface NewAgentPayload {
  name: string;
  description: string;
  category: string;
  isPublic: boolean;
  iconName: string;
  iconColor: string;
  userId: string;
  instructions: '';
  tags: [];
}

/** PATCH /api/agents/{id} body sent by the editor's Save Changes. */
export interface AgentUpdatePayload {
  instructions: string;
  /** 'active' or 'inactive' once toggled; otherwise the agent's current status (default 'active'). */
  status: string;
  isPublic: boolean;
  tags: string[];
  description: string;
}

export type SubscriberStatus = 'invited' | 'active';

export interface Subscriber {
  id: string;
  name: string;
  email: string;
  status: SubscriberStatus | (string & {});
  joinedDate: string;
  interactions: number;
}
