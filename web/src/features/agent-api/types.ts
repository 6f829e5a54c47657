/** The agent API's key management contract (docs/agent-api.md). Amounts are dollars. */
export interface ApiKey {
  id: string;
  agentId: string;
  name: string;
  /** The visible start of the key, e.g. "agk_3fQ9xZ". */
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  monthlyLimit: number | null;
  lastUsedAt: string | null;
  /** What the key's answers were charged this UTC month, in dollars. */
  monthSpend: number;
}

/** The response of POST …/api-keys: the only time the secret `key` is ever sent. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface NewApiKeyPayload {
  name: string;
  /** YYYY-MM-DD (valid through that day, UTC) or an RFC 3339 date-time. */
  expiresAt?: string;
  /** Dollars per UTC month. */
  monthlyLimit?: number;
}
