import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AnswerContent, STOPPED_BEFORE_ANSWER, STOPPED_CHARGED_INPUT } from './AnswerContent';

function renderAnswer(props: Parameters<typeof AnswerContent>[0]) {
  return render(
    <MemoryRouter>
      <AnswerContent {...props} />
    </MemoryRouter>,
  );
}

describe('AnswerContent end states', () => {
  it('a stored answer stopped before any text says only reading the question was charged', () => {
    renderAnswer({ text: '', phase: 'done', role: 'owner', storedStatus: 'partial' });
    expect(screen.getByText(STOPPED_CHARGED_INPUT)).toBeInTheDocument();
    expect(screen.queryByText('This answer is incomplete.')).not.toBeInTheDocument();
  });

  it('a stored partial answer with text is incomplete', () => {
    renderAnswer({ text: 'Once upon', phase: 'done', role: 'owner', storedStatus: 'partial' });
    expect(screen.getByText('This answer is incomplete.')).toBeInTheDocument();
    expect(screen.queryByText(STOPPED_CHARGED_INPUT)).not.toBeInTheDocument();
  });

  it('Stop before the first token says what may have been charged', () => {
    renderAnswer({ text: '', phase: 'stopped', role: 'owner' });
    expect(screen.getByText(STOPPED_BEFORE_ANSWER)).toBeInTheDocument();
    expect(screen.queryByText('Stopped. The answer above is incomplete.')).not.toBeInTheDocument();
  });
});

describe('AnswerContent: a stored answer stopped before its first token', () => {
  it('shows "Stopped" when nothing was charged', () => {
    renderAnswer({ text: '', phase: 'done', role: 'owner', storedStatus: 'stopped', usage: null });
    expect(screen.getByTestId('answer-stopped')).toHaveTextContent(/^Stopped$/);
  });

  it('says what reading the question cost when the model had it', () => {
    renderAnswer({
      text: '',
      phase: 'done',
      role: 'owner',
      storedStatus: 'stopped',
      usage: { inputTokens: 120, outputTokens: 0, costMicros: 180, feeMicros: 20, totalMicros: 200 },
    });
    expect(screen.getByTestId('answer-stopped')).toHaveTextContent('Stopped · charged $0.0002 for reading your question');
  });
});
