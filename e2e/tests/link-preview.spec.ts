import { expect, test, type APIRequestContext } from '@playwright/test';
import { createAgentByApi, newAgent } from '../support/agents';
import { createSimFile, simDocUrl, uniqueWord } from '../support/drive-sim';
import { newUser, registerByApi } from '../support/users';
import type { Identity } from '../support/wallet';
import { allowTime } from '../support/timeouts';

// Issue 27, "Link previews": a plain GET of /marketplace/{slug} — what a chat app's link preview or a crawler
// reads, without running JavaScript — is the SPA's shell with the agent's <title>, description, Open Graph tags
// and canonical link (the catalog renders it, docs/catalog.md "Link previews and sitemap.xml"); an unknown slug
// is the 404 page with HTTP 404; sitemap.xml lists the listed agents. The marketplace launch switch is on (the
// stack's default).

const SYNC_TIMEOUT = 45_000;

/** The text of an HTML attribute or element as a parser would read it (the entities the catalog writes). */
function unescapeHtml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The served page's head as a link preview reads it: the title, meta name/property → contents, canonical. */
function headOf(html: string) {
  const titles = [...html.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => unescapeHtml(m[1]!));
  const meta = (attr: 'name' | 'property', key: string) =>
    [...html.matchAll(new RegExp(`<meta\\s+${attr}="${key}"\\s+content="([^"]*)"`, 'g'))].map((m) => unescapeHtml(m[1]!));
  const canonical = [...html.matchAll(/<link rel="canonical" href="([^"]*)"/g)].map((m) => unescapeHtml(m[1]!));
  return { titles, meta, canonical };
}

/**
 * Publishes a new agent of `who` without the browser: creates it (active), shares a Google Doc with its address
 * in the Drive simulator, links the document, waits until the documents service has read it (publishing needs a
 * ready document), then `PATCH {isPublic: true}`. Returns the agent's id and slug.
 */
async function publishByApi(
  request: APIRequestContext,
  who: Identity,
  agent: { name: string; description: string; category: string },
): Promise<{ id: string; slug: string }> {
  const headers = { Authorization: `Bearer ${who.idToken}` };
  const { id } = await createAgentByApi(request, who, agent);
  const got = await request.get(`/api/agents/${id}`, { headers });
  expect(got.status(), await got.text()).toBe(200);
  const { email } = (await got.json()) as { email: string };

  const word = uniqueWord('preview');
  const file = await createSimFile(request, {
    title: `Tide tables ${word}`,
    sharedWith: [email],
    text: `Tide tables (${word}).\n\nHigh water at the ${word} pier comes about fifty minutes later each day.`,
  });
  const doc = await request.post(`/api/agents/${id}/documents`, {
    headers,
    data: { name: 'Tide_tables', url: simDocUrl(file.id), labels: [], sharingStatus: 'shared' },
  });
  expect(doc.status(), await doc.text()).toBe(201);
  // Ready = shared at the last sync and its text indexed (tokenCount set).
  await expect(async () => {
    const list = await request.get(`/api/agents/${id}/documents`, { headers });
    const docs = (await list.json()) as { sharingStatus: string; tokenCount: number | null }[];
    expect(docs[0]?.sharingStatus).toBe('shared');
    expect(docs[0]?.tokenCount).toBeGreaterThan(0);
  }).toPass({ timeout: SYNC_TIMEOUT });

  const published = await request.patch(`/api/agents/${id}`, { headers, data: { isPublic: true } });
  expect(published.status(), await published.text()).toBe(200);
  const { slug } = (await published.json()) as { slug: string | null };
  expect(slug).toBeTruthy();
  return { id, slug: slug! };
}

test('a listed agent\'s page carries its title and Open Graph tags without JavaScript; an unknown slug is a 404', async ({
  request,
  page,
}) => {
  allowTime(180_000);
  const creator = newUser('preview');
  const who = await registerByApi(request, creator);
  const base = newAgent('Tides');
  // Markup in the name and description: the page shows it as text.
  const agent = {
    ...base,
    name: `${base.name} & <Tables>`,
    description: `Reads "tide tables" & <harbour> notices for sailors.`,
  };
  const { id, slug } = await publishByApi(request, who, agent);

  // --- The page as a preview bot gets it (no JavaScript). ------------------------------------------------------
  const res = await request.get(`/marketplace/${slug}`);
  expect(res.status(), await res.text()).toBe(200);
  const headers = res.headers();
  expect(headers['content-type']).toBe('text/html; charset=utf-8');
  expect(headers['cache-control']).toBe('public, max-age=60');
  // The gateway's security headers apply to this page too.
  expect(headers['content-security-policy']).toMatch(/script-src 'self'/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  const html = await res.text();
  const head = headOf(html);
  expect(head.titles).toEqual([`${agent.name} | Agentic`]);
  expect(head.meta('property', 'og:title')).toEqual([agent.name]);
  expect(head.meta('name', 'twitter:title')).toEqual([agent.name]);
  expect(head.meta('name', 'description')).toEqual([agent.description]);
  expect(head.meta('property', 'og:description')).toEqual([agent.description]);
  expect(head.meta('property', 'og:type')).toEqual(['website']);
  expect(head.meta('name', 'robots')).toEqual(['index, follow']);
  // og:url and the canonical link: the agent's page on the app's public origin (APP_BASE_URL).
  expect(head.canonical).toHaveLength(1);
  expect(head.canonical[0]).toMatch(new RegExp(`^https?://[^/]+/marketplace/${slug}$`));
  expect(head.meta('property', 'og:url')).toEqual(head.canonical);
  // Escaped: the name's markup is text, never an element.
  expect(html).not.toContain('<Tables>');
  expect(html).not.toContain('<harbour>');
  expect(html).toContain('&lt;Tables&gt;');
  // The landing page's tags are replaced, the rest of the shell stays (the SPA boots from it).
  expect(html).not.toContain('Agentic: Turn Your Expertise into an AI Agent</title>');
  expect(head.meta('property', 'og:image')).toHaveLength(1);
  expect(html).toContain('<div id="root"></div>');
  expect(html).toMatch(/<script type="module"[^>]*src="\/assets\/[^"]+\.js"/);

  // --- The same URL in a browser: the SPA boots from that page and shows the profile. --------------------------
  await page.goto(`/marketplace/${slug}`);
  await expect(page.getByRole('heading', { level: 1, name: agent.name })).toBeVisible();
  await expect(page).toHaveTitle(`${agent.name} | Agentic`);

  // --- sitemap.xml lists the listed agent. -----------------------------------------------------------------------
  const sitemap = await request.get('/sitemap.xml');
  expect(sitemap.status()).toBe(200);
  expect(sitemap.headers()['content-type']).toBe('application/xml; charset=utf-8');
  const xml = await sitemap.text();
  expect(xml).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
  expect(xml).toMatch(/<loc>https?:\/\/[^<]+\/marketplace<\/loc>/);
  // Built at most once a minute: a sitemap built before this publish may be served for up to that minute.
  await expect(async () => {
    const again = await (await request.get('/sitemap.xml')).text();
    expect(again).toMatch(new RegExp(`<loc>https?://[^<]+/marketplace/${slug}</loc>\\s*<lastmod>`));
  }).toPass({ timeout: 75_000, intervals: [2_000, 5_000] });

  // --- An unknown slug: the 404 page (the shell, noindex), HTTP 404. ----------------------------------------------
  const unknown = await request.get(`/marketplace/${uniqueWord('no-such-agent-')}`);
  expect(unknown.status()).toBe(404);
  const notFound = await unknown.text();
  const notFoundHead = headOf(notFound);
  expect(notFoundHead.titles).toEqual(['Agent not found | Agentic']);
  expect(notFoundHead.meta('name', 'robots')).toEqual(['noindex']);
  expect(notFoundHead.canonical).toEqual([]);
  expect(notFound).toContain('<div id="root"></div>');

  // --- Unpublished: its page is the 404 page at once. ----------------------------------------------------------
  const unpublished = await request.patch(`/api/agents/${id}`, {
    headers: { Authorization: `Bearer ${who.idToken}` },
    data: { isPublic: false },
  });
  expect(unpublished.status(), await unpublished.text()).toBe(200);
  const gone = await request.get(`/marketplace/${slug}`);
  expect(gone.status()).toBe(404);
  expect(headOf(await gone.text()).titles).toEqual(['Agent not found | Agentic']);

  // /marketplace itself and an agent's chat stay the SPA's (the shell as it is, 200).
  for (const path of ['/marketplace', `/marketplace/${slug}/chat`]) {
    const spa = await request.get(path);
    expect(spa.status(), path).toBe(200);
    expect(headOf(await spa.text()).titles, path).toEqual(['Agentic: Turn Your Expertise into an AI Agent']);
  }
});
