import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fetchMarketplaceStatus } from '@/features/marketplace/api/status';
import { setMarketplaceEnabled } from '@/test/marketplace';
import { authValue, renderApp } from '@/test/render';
import { CONTACT_HREF, LANDING_TITLE } from '../content';

vi.mock('@/lib/firebase', () => ({ loadFirebase: vi.fn(async () => ({ auth: { currentUser: null } })) }));

// The first render downloads/transforms the lazy route: be patient on a busy machine.
const slow = { timeout: 10_000 };

async function renderLanding(path = '/') {
  const result = renderApp(path);
  await screen.findByRole('heading', { level: 1, name: 'Agentic' }, slow);
  return result;
}

describe('landing page', () => {
  it('has the four section anchors, their sections, and every call to action to /auth', async () => {
    await renderLanding();
    const sections = screen.getByRole('navigation', { name: 'Sections' });
    const anchors = within(sections)
      .getAllByRole('link')
      .map((a) => [a.textContent, a.getAttribute('href')]);
    expect(anchors).toEqual([
      ['Benefits', '#features'],
      ['How It Works', '#how-it-works'],
      ['Pricing', '#pricing'],
      ['Use Cases', '#use-cases'],
    ]);
    for (const [id, heading] of [
      ['features', 'Benefits'],
      ['how-it-works', 'How It Works'],
      ['pricing', 'Pricing'],
      ['use-cases', 'Use Cases'],
    ]) {
      const section = document.getElementById(id);
      expect(section).not.toBeNull();
      expect(within(section!).getByRole('heading', { level: 2 })).toHaveTextContent(heading);
    }
    for (const name of ['Sign In', 'Get Started', 'Create Your Agentic User', 'Create Private Agent', 'Get Started Today']) {
      expect(screen.getByRole('link', { name })).toHaveAttribute('href', '/auth');
    }
    // Set by an effect, which React may run just after the commit the heading query saw.
    await waitFor(() => expect(document.title).toBe(LANDING_TITLE));
  });

  it('shows the spec content: steps, benefits, use cases, pricing facts and the footer', async () => {
    await renderLanding();
    expect(screen.getByRole('heading', { name: 'Access Expert Knowledge, On Demand' })).toBeInTheDocument();
    const steps = within(document.getElementById('how-it-works')!).getAllByRole('listitem');
    expect(steps).toHaveLength(4);
    expect(within(document.getElementById('features')!).getAllByRole('listitem')).toHaveLength(3);
    expect(within(document.getElementById('features')!).getByText('Coming soon')).toBeInTheDocument();
    const useCases = within(document.getElementById('use-cases')!);
    for (const audience of ['University Professors', 'Compliance Experts', 'Technical Writers']) {
      expect(useCases.getByRole('heading', { name: audience })).toBeInTheDocument();
    }
    const pricing = within(document.getElementById('pricing')!);
    expect(pricing.getAllByText('$10')).toHaveLength(2);
    expect(pricing.getByText('/month per agent')).toBeInTheDocument();
    expect(pricing.getByText('Plus pay-as-you-go interaction costs')).toBeInTheDocument();
    expect(pricing.getAllByText('3% service fee added to base costs')).toHaveLength(2);
    expect(pricing.getByText('You set a markup percentage on interaction costs')).toBeInTheDocument();
    expect(pricing.getByText('Usage costs are deducted from your wallet')).toBeInTheDocument();

    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByText(`© ${new Date().getFullYear()} Agentic. All rights reserved.`)).toBeInTheDocument();
    for (const name of ['Terms', 'Privacy']) {
      const link = within(footer).getByRole('link', { name });
      expect(link).toHaveAttribute('href', '#');
    }
  });

  it('opens and closes the waitlist and contact dialogs independently', async () => {
    const { router } = await renderLanding();
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Join Waitlist for Marketplace' }));
    const waitlist = screen.getByRole('dialog', { name: 'Marketplace Coming Soon!' });
    expect(waitlist).toHaveTextContent('under development');
    expect(within(waitlist).getByRole('link', { name: 'Create Account' })).toHaveAttribute(
      'href',
      '/auth?interest=marketplace',
    );
    expect(screen.queryByRole('dialog', { name: 'Get In Touch' })).not.toBeInTheDocument();
    await user.click(within(waitlist).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog', { name: 'Marketplace Coming Soon!' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('link', { name: 'Contact' }));
    const contact = screen.getByRole('dialog', { name: 'Get In Touch' });
    expect(within(contact).getByRole('link', { name: 'hello@agentic.app' })).toHaveAttribute('href', CONTACT_HREF);
    expect(CONTACT_HREF).toBe('mailto:hello@agentic.app?subject=Agentic%20inquiry');
    expect(screen.queryByRole('dialog', { name: 'Marketplace Coming Soon!' })).not.toBeInTheDocument();
    await user.click(within(contact).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog', { name: 'Get In Touch' })).not.toBeInTheDocument();

    // The Public pricing card opens the same waitlist dialog; Create Account leads to /auth?interest=marketplace.
    await user.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    await user.click(screen.getByRole('link', { name: 'Create Account' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'));
    expect(router.state.location.search).toBe('?interest=marketplace');
  });

  it('removes ?success=true from the address', async () => {
    const { router } = await renderLanding('/?success=true');
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(router.state.location.pathname).toBe('/');
  });
});

describe('landing page and the marketplace launch switch (issue 27)', () => {
  it('on: Browse the Marketplace, Publish an Agent (to /auth) and no "coming soon" for the marketplace', async () => {
    setMarketplaceEnabled(true);
    const { router } = await renderLanding();
    const browse = await screen.findByRole('link', { name: 'Browse the Marketplace' });
    expect(browse).toHaveAttribute('href', '/marketplace');
    expect(screen.queryByRole('button', { name: 'Join Waitlist for Marketplace' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Join Waitlist' })).not.toBeInTheDocument();
    expect(screen.queryByText(/The marketplace is coming soon/)).not.toBeInTheDocument();

    const pricing = within(document.getElementById('pricing')!);
    expect(pricing.getByRole('link', { name: 'Publish an Agent' })).toHaveAttribute('href', '/auth');
    expect(pricing.getByRole('heading', { name: 'Public Marketplace Agent' })).toBeInTheDocument();
    expect(pricing.queryByText('Coming soon')).not.toBeInTheDocument();

    const benefits = within(document.getElementById('features')!);
    expect(benefits.getByRole('heading', { name: 'New Revenue Streams' })).toBeInTheDocument();
    expect(benefits.queryByText('Coming soon')).not.toBeInTheDocument();
    expect(within(document.getElementById('how-it-works')!).getByText(/publish it to the marketplace\.$/)).toBeInTheDocument();
    // What the spec fixes stays: the other calls to action, the contact dialog.
    expect(screen.getByRole('link', { name: 'Create Private Agent' })).toHaveAttribute('href', '/auth');
    expect(screen.getByRole('heading', { name: 'Access Expert Knowledge, On Demand' })).toBeInTheDocument();

    await userEvent.setup().click(browse);
    await waitFor(() => expect(router.state.location.pathname).toBe('/marketplace'));
  });

  it('on, signed in: Publish an Agent leads to the agent list', async () => {
    setMarketplaceEnabled(true);
    renderApp('/', authValue({ user: { uid: 'u1', email: 'ada@example.com', displayName: 'Ada' } }));
    expect(await screen.findByRole('link', { name: 'Publish an Agent' }, slow)).toHaveAttribute(
      'href',
      '/dashboard/agentic-users',
    );
  });

  it('off, unknown or failed: the spec page with its waitlist buttons', async () => {
    for (const status of [
      async () => ({ enabled: false }),
      () => new Promise<{ enabled: boolean }>(() => {}),
      async () => {
        throw new Error('503: Service Unavailable');
      },
    ]) {
      vi.mocked(fetchMarketplaceStatus).mockImplementation(status);
      const { unmount } = await renderLanding();
      await waitFor(() => expect(fetchMarketplaceStatus).toHaveBeenCalled());
      expect(screen.getByRole('button', { name: 'Join Waitlist for Marketplace' })).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Join Waitlist' })).toBeInTheDocument();
      expect(screen.queryByRole('link', { name: 'Browse the Marketplace' })).not.toBeInTheDocument();
      expect(screen.queryByRole('link', { name: 'Publish an Agent' })).not.toBeInTheDocument();
      expect(within(document.getElementById('features')!).getByText('Coming soon')).toBeInTheDocument();
      expect(screen.getByText(/The marketplace is coming soon\./)).toBeInTheDocument();
      unmount();
      vi.mocked(fetchMarketplaceStatus).mockClear();
    }
  });
});
