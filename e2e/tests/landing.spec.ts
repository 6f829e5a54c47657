import { expect, test, type Page } from '@playwright/test';
import { forceMarketplace } from '../support/marketplace';

// The spec's landing page: the marketplace launch switch off (issue 27), whatever the stack runs with.
// marketplace-launch.spec.ts checks the page with the switch on.
test.beforeEach(async ({ page }) => {
  await forceMarketplace(page, false);
});

const TITLE = 'Agentic: Turn Your Expertise into an AI Agent';

async function openLanding(page: Page, path = '/') {
  await page.goto(path);
  await expect(page.getByRole('heading', { level: 1, name: 'Agentic' })).toBeVisible();
}

test('the served HTML of / carries the SEO and social tags (before any JavaScript runs)', async ({ request }) => {
  const res = await request.get('/');
  expect(res.status()).toBe(200);
  const html = await res.text();
  const meta = (attr: 'name' | 'property', key: string) =>
    html.match(new RegExp(`<meta\\s+${attr}="${key}"\\s+content="([^"]+)"`))?.[1];

  expect(html).toContain(`<title>${TITLE}</title>`);
  expect(meta('name', 'description')).toMatch(/expertise into an AI agent/);
  expect(meta('name', 'robots')).toBe('index, follow');
  expect(html).toMatch(/<link rel="canonical" href="https:\/\/agentic\.app\/"/);
  expect(meta('property', 'og:type')).toBe('website');
  expect(meta('property', 'og:title')).toBe(TITLE);
  expect(meta('property', 'og:description')).toBeTruthy();
  expect(meta('property', 'og:url')).toBe('https://agentic.app/');
  expect(meta('property', 'og:image')).toBe('https://agentic.app/og-image.png');
  expect(meta('name', 'twitter:card')).toBe('summary_large_image');
  expect(meta('name', 'twitter:title')).toBe(TITLE);
  expect(meta('name', 'twitter:image')).toBe('https://agentic.app/og-image.png');

  const jsonLd = html.match(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/)?.[1];
  expect(jsonLd).toBeTruthy();
  const org = JSON.parse(jsonLd!) as Record<string, unknown>;
  expect(org).toMatchObject({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Agentic', url: 'https://agentic.app/' });

  // The files the tags point to are served.
  for (const path of ['/og-image.png', '/logo.png', '/robots.txt', '/sitemap.xml', '/favicon.svg']) {
    expect((await request.get(path)).status(), path).toBe(200);
  }
  expect(await (await request.get('/robots.txt')).text()).toContain('Sitemap: https://agentic.app/sitemap.xml');
});

test('the page title is set and every section is reachable from the top navigation', async ({ page }) => {
  await openLanding(page);
  await expect(page).toHaveTitle(TITLE);
  const sections = page.getByRole('navigation', { name: 'Sections' });
  for (const [label, id, heading] of [
    ['Benefits', 'features', 'Benefits'],
    ['How It Works', 'how-it-works', 'How It Works'],
    ['Pricing', 'pricing', 'Pricing'],
    ['Use Cases', 'use-cases', 'Use Cases'],
  ] as const) {
    await sections.getByRole('link', { name: label }).click();
    await expect(page).toHaveURL(new RegExp(`#${id}$`));
    const section = page.locator(`section#${id}`);
    await expect(section.getByRole('heading', { level: 2, name: heading })).toBeInViewport();
  }
});

test('the sections show the spec content', async ({ page }) => {
  await openLanding(page);
  await expect(page.getByRole('heading', { name: 'Access Expert Knowledge, On Demand' })).toBeVisible();
  await expect(page.locator('#how-it-works li')).toHaveCount(4);
  for (const step of ['Create Your Agent', 'Get a Unique E-mail', 'Share and Collaborate', 'Control Access or Monetize']) {
    await expect(page.locator('#how-it-works').getByRole('heading', { name: step })).toBeVisible();
  }
  const benefits = page.locator('#features');
  for (const b of ['Effortless Knowledge Sharing', 'Seamless Collaboration', 'New Revenue Streams']) {
    await expect(benefits.getByRole('heading', { name: new RegExp(b) })).toBeVisible();
  }
  await expect(benefits.getByRole('heading', { name: /New Revenue Streams/ })).toContainText('Coming soon');
  const useCases = page.locator('#use-cases');
  for (const u of ['University Professors', 'Compliance Experts', 'Technical Writers']) {
    await expect(useCases.getByRole('heading', { name: u })).toBeVisible();
  }
  const pricing = page.locator('#pricing');
  await expect(pricing.getByRole('heading', { name: 'Private Agent' })).toBeVisible();
  await expect(pricing.getByRole('heading', { name: /Public Marketplace Agent/ })).toBeVisible();
  await expect(pricing).toContainText('$10 /month per agent');
  await expect(pricing).toContainText('pay-as-you-go interaction costs');
  await expect(pricing).toContainText('3% service fee added to base costs');
  await expect(pricing).toContainText('You set a markup percentage on interaction costs');
  await expect(pricing).toContainText('Usage costs are deducted from your wallet');
  await expect(page.getByRole('contentinfo')).toContainText(`© ${new Date().getFullYear()} Agentic. All rights reserved.`);
});

for (const name of ['Sign In', 'Get Started', 'Create Your Agentic User', 'Create Private Agent', 'Get Started Today']) {
  test(`"${name}" leads to /auth`, async ({ page }) => {
    await openLanding(page);
    await page.getByRole('link', { name, exact: true }).click();
    await expect(page).toHaveURL(/\/auth$/);
    await expect(page.getByRole('tab', { name: 'Login' })).toBeVisible();
  });
}

test('Terms and Privacy are placeholders that lead nowhere', async ({ page }) => {
  await openLanding(page);
  const footer = page.getByRole('contentinfo');
  for (const name of ['Terms', 'Privacy']) {
    await footer.getByRole('link', { name }).click();
    await expect(page).toHaveURL(/localhost:\d+\/$/);
  }
});

test('the waitlist and contact dialogs open and close independently', async ({ page }) => {
  await openLanding(page);
  const waitlist = page.getByRole('dialog', { name: 'Marketplace Coming Soon!' });
  const contact = page.getByRole('dialog', { name: 'Get In Touch' });

  await page.getByRole('button', { name: 'Join Waitlist for Marketplace' }).click();
  await expect(waitlist).toBeVisible();
  await expect(waitlist).toContainText('under development');
  await expect(waitlist.getByRole('link', { name: 'Create Account' })).toHaveAttribute('href', '/auth?interest=marketplace');
  await expect(contact).toBeHidden();
  await waitlist.getByRole('button', { name: 'Close' }).click();
  await expect(waitlist).toBeHidden();

  await page.getByRole('contentinfo').getByRole('link', { name: 'Contact' }).click();
  await expect(contact).toBeVisible();
  await expect(waitlist).toBeHidden();
  await expect(contact.getByRole('link', { name: 'hello@agentic.app' })).toHaveAttribute(
    'href',
    'mailto:hello@agentic.app?subject=Agentic%20inquiry',
  );
  await contact.getByRole('button', { name: 'Close' }).click();
  await expect(contact).toBeHidden();

  // Escape closes too, and the Public pricing card opens the waitlist as well.
  await page.locator('#pricing').getByRole('button', { name: 'Join Waitlist' }).click();
  await expect(waitlist).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(waitlist).toBeHidden();
  await expect(contact).toBeHidden();

  await page.getByRole('button', { name: 'Join Waitlist for Marketplace' }).click();
  await waitlist.getByRole('link', { name: 'Create Account' }).click();
  await expect(page).toHaveURL(/\/auth\?interest=marketplace$/);
});

test('the dialogs are keyboard operable', async ({ page }) => {
  await openLanding(page);
  await page.getByRole('button', { name: 'Join Waitlist for Marketplace' }).focus();
  await page.keyboard.press('Enter');
  const waitlist = page.getByRole('dialog', { name: 'Marketplace Coming Soon!' });
  await expect(waitlist).toBeVisible();
  // Focus moves into the dialog.
  await expect(waitlist.getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(waitlist).toBeHidden();
  await expect(page.getByRole('button', { name: 'Join Waitlist for Marketplace' })).toBeFocused();
});

test('a return with ?success=true drops the query string from the address bar', async ({ page }) => {
  await page.goto('/?success=true');
  await expect(page.getByRole('heading', { level: 1, name: 'Agentic' })).toBeVisible();
  await expect(page).toHaveURL(/localhost:\d+\/$/);
  expect(await page.evaluate(() => window.location.search)).toBe('');
});

test('fits a 360px screen without horizontal scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openLanding(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expect(page.getByRole('link', { name: 'Get Started', exact: true })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Use Cases' })).toBeInViewport();
});
