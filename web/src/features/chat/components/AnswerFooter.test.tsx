import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AnswerFooter, safeHref, uniqueCitations } from './AnswerFooter';

const c = (documentId: string, documentName: string, url = `https://docs.google.com/document/d/${documentId}/edit`) => ({
  documentId,
  documentName,
  url,
  labels: [],
});

describe('AnswerFooter', () => {
  it('shows one chip per document and the usage line with the model', () => {
    render(
      <AnswerFooter
        citations={[c('d1', 'Syllabus'), c('d2', 'Lab 2'), c('d1', 'Syllabus')]}
        usage={{ inputTokens: 800, outputTokens: 12, costMicros: 874, feeMicros: 27, totalMicros: 901, model: 'agentic-sim' }}
      />,
    );
    expect(screen.getAllByTestId('citation-chip').map((a) => a.textContent)).toEqual(['Syllabus', 'Lab 2']);
    expect(screen.getByRole('link', { name: 'Syllabus' })).toHaveAttribute('href', 'https://docs.google.com/document/d/d1/edit');
    expect(screen.getByTestId('answer-usage')).toHaveTextContent(/^812 tokens · \$0\.0009$/);
    expect(screen.getByTestId('answer-model')).toHaveTextContent('· agentic-sim');
  });

  it("shows a marketplace answer's price parts under its total", () => {
    render(
      <AnswerFooter
        citations={[]}
        usage={{ inputTokens: 10, outputTokens: 5, costMicros: 300, feeMicros: 9, markupMicros: 60, totalMicros: 369 }}
      />,
    );
    expect(screen.getByTestId('answer-usage')).toHaveTextContent(/^15 tokens · \$0\.0004$/);
    expect(screen.getByTestId('answer-price-parts')).toHaveTextContent('usage $0.0003 + service fee $0.00001 + markup $0.0001');
  });

  it('shows no parts for an owner answer', () => {
    render(<AnswerFooter citations={[]} usage={{ inputTokens: 1, outputTokens: 1, costMicros: 10, feeMicros: 1, totalMicros: 11 }} />);
    expect(screen.queryByTestId('answer-price-parts')).not.toBeInTheDocument();
  });

  it('never puts a non-http(s) URL into a link, and renders nothing without citations or usage', () => {
    const { container, rerender } = render(<AnswerFooter citations={[c('d1', 'Bad', 'javascript:alert(1)')]} usage={null} />);
    expect(screen.getByTestId('citation-chip').tagName).toBe('SPAN');
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
    rerender(<AnswerFooter citations={[]} usage={null} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('helpers', () => {
    expect(safeHref('https://docs.google.com/x')).toBe('https://docs.google.com/x');
    expect(safeHref('data:text/html,hi')).toBeUndefined();
    expect(safeHref('not a url')).toBeUndefined();
    expect(uniqueCitations([c('a', 'A'), c('a', 'A2'), c('b', 'B')]).map((x) => x.documentName)).toEqual(['A', 'B']);
  });
});
