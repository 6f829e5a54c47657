import { hashKey, QueryClient, type QueryFunction, type QueryKey } from '@tanstack/react-query';
import { apiRequest } from './api-client';

/**
 * Default data fetch (spec §7): GET on the first element of the query key, with
 * credentials, read as JSON. Every /api call also needs the Bearer token, so it goes
 * through the authenticated client.
 */
export const defaultQueryFn: QueryFunction = async ({ queryKey, signal }) => {
  const [url] = queryKey;
  if (typeof url !== 'string') {
    throw new Error('The first element of the query key must be the URL to fetch.');
  }
  return apiRequest(url, { method: 'GET', signal });
};

/** Whose data a client's cache holds: the signed-in uid, or null when signed out. */
interface UserScope {
  uid: string | null;
}

const scopes = new WeakMap<QueryClient, UserScope>();

/**
 * Every cached query is keyed by user: the cache hash of a query key is the hash of
 * `[uid, ...queryKey]`, so a query of one user can never answer the same key for another user,
 * even if it resolves after the switch. The query key itself (what `queryKey[0]` fetches and what
 * invalidation matches) stays as written by the feature.
 */
export function userScopedHash(scope: UserScope) {
  return (queryKey: QueryKey): string => hashKey([scope.uid, ...queryKey]);
}

export function createQueryClient(): QueryClient {
  const scope: UserScope = { uid: null };
  const client = new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: defaultQueryFn,
        queryKeyHashFn: userScopedHash(scope),
        retry: false,
        refetchOnWindowFocus: false,
        staleTime: Infinity,
      },
      mutations: {
        retry: false,
      },
    },
  });
  scopes.set(client, scope);
  return client;
}

/**
 * Scopes `client`'s cache to the signed-in user (`null`: signed out). When the user changes, every
 * query and mutation of the previous one is cancelled and dropped before anything renders for the
 * new one. Call it synchronously from the auth state listener and after sign-out.
 */
export function setQueryCacheUser(client: QueryClient, uid: string | null): void {
  const scope = scopes.get(client);
  if (scope && scope.uid === uid) return;
  client.clear();
  if (scope) scope.uid = uid;
}

export const queryClient = createQueryClient();
