import { QueryClient, type QueryFunction } from '@tanstack/react-query';
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

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: defaultQueryFn,
        retry: false,
        refetchOnWindowFocus: false,
        staleTime: Infinity,
      },
      mutations: {
        retry: false,
      },
    },
  });
}

export const queryClient = createQueryClient();
