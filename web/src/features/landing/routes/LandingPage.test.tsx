import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '@/test/render';
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
