import { configure, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PHONE_QUERY } from '@/lib/use-media-query';
import type { Agent } from '../types';
import { AgentsTable } from './AgentsTable';

configure({ defaultHidden: true });

const AGENT = {
  id: 'a1',
  userId: 'u1',
  name: 'Math Tutor',
  description: 'Helps with algebra.',
  category: 'Education',
  status: 'active',
  isPublic: false,
  iconName: 'ri-robot-line',
  iconColor: '#FF3E00',
  instructions: '',
  tags: ['math'],
  subscribers: 2,
  totalInteractions: 42,
  email: 'math-tutor@agents.test',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
} as Agent;

const original = window.matchMedia;
afterEach(() => {
  window.matchMedia = original;
});

const headers = () => screen.getAllByRole('columnheader').map((h) => h.textContent);

describe('AgentsTable', () => {
  it('shows every column on wider screens', () => {
    render(<AgentsTable agents={[AGENT]} onOpen={vi.fn()} />);
    expect(headers()).toEqual(['Agent', 'Category', 'Status', 'Users', 'Interactions', 'Tags']);
  });

  it('shows the key columns (the agent and its status) on a phone', () => {
    window.matchMedia = ((query: string) => ({
      matches: query === PHONE_QUERY,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    })) as unknown as typeof window.matchMedia;
    render(<AgentsTable agents={[AGENT]} onOpen={vi.fn()} />);
    expect(headers()).toEqual(['Agent', 'Status']);
    expect(screen.getByText('Math Tutor')).toBeInTheDocument();
    expect(screen.getByText('active')).toBeInTheDocument();
  });
});
