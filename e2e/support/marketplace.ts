import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { createAgentByApi, newAgent } from './agents';
import { createSimFile, simDocUrl, uniqueWord } from './drive-sim';
import type { Identity } from './wallet';

/**
 * Forces the web app's view of the marketplace launch switch (GET /api/marketplace/status, issue 27) for this
 * page, whatever the stack runs with. Call it before the first navigation: the app asks once per session.
 * Specs of the spec's "coming soon" screens force it off; marketplace-launch.spec.ts forces it on.
 */
export async function forceMarketplace(page: Page, enabled: boolean) {
  await page.route('**/api/marketplace/status', (route) => route.fulfill({ json: { enabled } }));
}

export interface ListedAgent {
  id: string;
  name: string;
  slug: string;
  /** A sentence of its document (a question about it is answered from it). */
  fact: string;
  /** The unique word in its name (search finds the agent by it). */
  word: string;
}

export interface ListingFields {
  markupPercent?: number;
  greetingCostCents?: number;
  greeting?: string;
}

/**
 * Lists an agent on the marketplace without the browser (issue 27's rules): creates it, links a document the
 * Drive simulator shares with the agent's address, waits until it is shared and indexed, then publishes it with
 * the listing fields. The owner's wallet is not touched.
 */
export async function listAgentByApi(
  request: APIRequestContext,
  owner: Identity,
  prefix: string,
  fields: ListingFields = {},
): Promise<ListedAgent> {
  const agent = newAgent(prefix);
  const created = await createAgentByApi(request, owner, agent);
  const auth = { Authorization: `Bearer ${owner.idToken}` };
  const got = await request.get(`/api/agents/${created.id}`, { headers: auth });
  expect(got.status(), await got.text()).toBe(200);
  const email = ((await got.json()) as { email: string }).email;

  const word = uniqueWord('mkt');
  const fact = `Visitors of the ${word} observatory may use the telescope for forty minutes at most.`;
  const file = await createSimFile(request, {
    title: `Observatory rules ${word}`,
    sharedWith: [email],
    text: `Observatory rules (${word}).\n\n${fact}\n\nTickets are sold at the gate.`,
  });
  const linked = await request.post(`/api/agents/${created.id}/documents`, {
    headers: auth,
    data: { name: `Rules${word}`, url: simDocUrl(file.id), driveFileId: file.id, labels: [], sharingStatus: 'shared' },
  });
  expect(linked.status(), await linked.text()).toBe(201);
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/agents/${created.id}/documents`, { headers: auth });
        const docs = (await res.json()) as { sharingStatus: string; syncState: string; tokenCount: number | null }[];
        return docs.some((d) => d.sharingStatus === 'shared' && d.syncState === 'synced' && (d.tokenCount ?? 0) > 0);
      },
      { timeout: 30_000 },
    )
    .toBe(true);

  const published = await request.patch(`/api/agents/${created.id}`, {
    headers: auth,
    data: { isPublic: true, markupPercent: 20, greetingCostCents: 0, ...fields },
  });
  expect(published.status(), await published.text()).toBe(200);
  const body = (await published.json()) as { slug: string };
  expect(body.slug).toBeTruthy();
  return { id: created.id, name: agent.name, slug: body.slug, fact, word };
}
