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
  /**
   * The default monthly cap on what one subscriber's answers may cost the owner, in cents; null = no cap.
   * Absent from older responses; shared-agent responses send null.
   */
  subscriberMonthlyCapCents?: number | null;
  /** Shared-agent responses only: the owner's display name (never a uid). */
  ownerName?: string | null;
  /**
   * Marketplace listing (issue 27), in the owner's view while the marketplace is on; absent otherwise.
   * slug: assigned at the first publish, then stable (null before).
   */
  slug?: string | null;
  publishedAt?: string | null;
  markupPercent?: number;
  greetingCostCents?: number;
  greeting?: string;
  memoryTokens?: number;
  showSources?: boolean;
}

/** The listing members of PATCH /api/agents/{id}, sent by Save Changes only while the marketplace is on. */
export interface ListingPayload {
  markupPercent: number;
  greetingCostCents: number;
  greeting: string;
  memoryTokens: number;
  showSources: boolean;
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

/** The agent's name, icon and colour, changed in the Settings tab (issue 29); sent only when changed. */
export interface AppearancePayload {
  name: string;
  iconName: string;
  iconColor: string;
}

/**
 * What Save Changes sends: the spec's members, plus the listing ones while the marketplace is on, plus the
 * appearance members that changed.
 */
export type AgentSavePayload = AgentUpdatePayload & Partial<ListingPayload> & Partial<AppearancePayload>;

export type SubscriberStatus = 'invited' | 'active';

export interface Subscriber {
  id: string;
  name: string;
  email: string;
  status: SubscriberStatus | (string & {});
  joinedDate: string;
  interactions: number;
  /** Which monthly cap applies: the agent's default, none, or this subscriber's own amount. */
  capMode?: SubscriberCapMode | (string & {});
  /** The custom amount in cents (capMode 'custom'); null otherwise. */
  monthlyCapCents?: number | null;
  /** The cap that applies, in cents; null = no cap. */
  effectiveCapCents?: number | null;
}

export type SubscriberCapMode = 'default' | 'none' | 'custom';

/** PATCH /api/agents/{id}/subscribers/{subscriberId} body; monthlyCapCents only for 'custom'. */
export type SubscriberCapPayload =
  | { capMode: 'default' | 'none' }
  | { capMode: 'custom'; monthlyCapCents: number };
