import { describe, expect, it } from 'vitest';
import { createQueryClient, setQueryCacheUser } from './query-client';

describe('user-scoped query cache', () => {
  it('keys every query by the signed-in user', () => {
    const client = createQueryClient();
    setQueryCacheUser(client, 'alice');
    const hashAlice = client.defaultQueryOptions({ queryKey: ['/api/agents'] }).queryHash;
    setQueryCacheUser(client, 'bob');
    const hashBob = client.defaultQueryOptions({ queryKey: ['/api/agents'] }).queryHash;
    expect(hashAlice).not.toBe(hashBob);
    expect(hashBob).toContain('bob');
  });

  it('drops the previous user’s data on a user change and on sign-out, not on a repeat of the same user', () => {
    const client = createQueryClient();
    setQueryCacheUser(client, 'alice');
    client.setQueryData(['/api/agents'], ['alice-agent']);
    setQueryCacheUser(client, 'alice');
    expect(client.getQueryData(['/api/agents'])).toEqual(['alice-agent']);

    setQueryCacheUser(client, 'bob');
    expect(client.getQueryData(['/api/agents'])).toBeUndefined();
    expect(client.getQueryCache().getAll()).toHaveLength(0);

    client.setQueryData(['/api/agents'], ['bob-agent']);
    setQueryCacheUser(client, null);
    expect(client.getQueryCache().getAll()).toHaveLength(0);
    setQueryCacheUser(client, 'bob');
    expect(client.getQueryData(['/api/agents'])).toBeUndefined();
  });
});
