import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { Citation } from '../types';
import '../test/jsdom-stubs';
import { AnswerContent } from './AnswerContent';

const SYLLABUS: Citation = {
  documentId: 'd1',
  documentName: 'Syllabus',
  url: 'https://docs.google.com/document/d/d1/edit',
  labels: ['week1'],
  markers: [1],
  passages: [{ n: 1, text: 'The exam is on May 4 in room 101.' }],
};

function renderAnswer(text: string, citations: Citation[]) {
  return render(
    <MemoryRouter>
      <AnswerContent text={text} phase="done" role="consumer" citations={citations} />
    </MemoryRouter>,
  );
}

describe('CitationMarker', () => {
  it('a marker is a button that opens the cited passage in a popover, and Escape closes it', async () => {
    renderAnswer('According to **Syllabus** [1], the exam is in May.', [SYLLABUS]);
    const marker = await screen.findByRole('button', { name: 'Source [1]' });
    expect(marker).toHaveAttribute('aria-expanded', 'false');

    fireEvent.click(marker);
    const popover = await screen.findByTestId('citation-popover');
    expect(popover).toHaveAccessibleName('Source [1]');
    expect(screen.getByTestId('citation-passage')).toHaveTextContent('The exam is on May 4 in room 101.');
    expect(screen.getByTestId('citation-document')).toHaveTextContent('Syllabus');
    expect(screen.getByRole('link', { name: /Open in Google Docs/ })).toHaveAttribute('href', SYLLABUS.url);
    expect(marker).toHaveAttribute('aria-expanded', 'true');
    await waitFor(() => expect(popover).toHaveFocus());

    fireEvent.keyDown(popover, { key: 'Escape' });
    await waitFor(() => expect(marker).toHaveAttribute('aria-expanded', 'false'));
    expect(marker).toHaveFocus();
  });

  it('shows only the document name when the agent hides its sources', async () => {
    const hidden: Citation = { documentId: 'd1', documentName: 'Syllabus', url: '', labels: ['week1'] };
    renderAnswer('The exam is in May [1].', [hidden]);
    fireEvent.click(await screen.findByRole('button', { name: 'Source [1]' }));
    const popover = await screen.findByTestId('citation-popover');
    expect(screen.getByTestId('citation-document')).toHaveTextContent('Syllabus');
    expect(screen.queryByTestId('citation-passage')).not.toBeInTheDocument();
    expect(popover.querySelector('a')).toBeNull();
    expect(popover).not.toHaveTextContent('week1');
  });

  it('leaves markers as text in an answer without citations', async () => {
    renderAnswer('Item [1] of the list.', []);
    expect(await screen.findByText(/Item \[1\] of the list\./)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Source/ })).not.toBeInTheDocument();
  });
});
