import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TagList } from './TagList';

describe('TagList', () => {
  it('shows the first two tags then a +N badge', () => {
    const { container } = render(<TagList tags={['math', 'physics', 'exams', 'labs']} />);
    expect(screen.getByText('math')).toBeInTheDocument();
    expect(screen.getByText('physics')).toBeInTheDocument();
    expect(screen.queryByText('exams')).not.toBeInTheDocument();
    expect(screen.getByText('+2')).toHaveAttribute('title', 'exams, labs');
    expect(container.querySelectorAll('.agent-badge')).toHaveLength(3);
  });

  it('has no +N badge for two tags or fewer', () => {
    render(<TagList tags={['math', 'physics']} />);
    expect(screen.queryByText(/^\+/)).not.toBeInTheDocument();
  });
});
