import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { StatCards } from './StatCards';

const base = {
  agentCount: 1,
  agentGrowth: 100,
  totalRevenue: 1250,
  revenueGrowth: 25,
  totalInteractions: 3,
  interactionGrowth: 100,
};

describe('StatCards', () => {
  it('growth against an empty last month shows "New" rather than "+100%"', () => {
    render(<StatCards stats={{ ...base, agentNew: true, revenueNew: false, interactionNew: true }} />);
    const agents = screen.getByRole('article', { name: 'Total Agentic Users' });
    expect(agents).toHaveTextContent('New this month');
    expect(agents).not.toHaveTextContent('+100.0%');
    expect(within(screen.getByRole('article', { name: 'Interactions' })).getByText('New')).toBeInTheDocument();
    expect(screen.getByRole('article', { name: 'Total Revenue' })).toHaveTextContent('+25.0% from last month');
  });

  it('an older server without the flags keeps the percentage', () => {
    render(<StatCards stats={base} />);
    expect(screen.getByRole('article', { name: 'Total Agentic Users' })).toHaveTextContent('+100.0% from last month');
  });
});
