import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-error';
import { removeToast } from './toast-store';
import { Toaster } from './Toaster';
import { toast } from './use-toast';

beforeEach(() => removeToast());

describe('<Toaster />', () => {
  it('renders toasts newest first as status/alert named by their title', async () => {
    render(<Toaster />);
    act(() => {
      toast({ title: 'Login successful', description: 'Welcome back, ada@example.com!' });
      toast({ title: 'Login failed', description: 'Incorrect password.', variant: 'destructive' });
    });

    const region = screen.getByRole('region', { name: 'Notifications (F8)' });
    // Only list items in the list (axe "list"); each holds one toast.
    const list = within(region).getByRole('list');
    expect([...list.children].map((child) => [child.tagName, child.getAttribute('role')])).toEqual([
      ['LI', null],
      ['LI', null],
    ]);
    const items = region.querySelectorAll('li > [data-toast]');
    expect([...items].map((el) => el.getAttribute('data-variant'))).toEqual(['destructive', 'default']);

    const alert = screen.getByRole('alert', { name: 'Login failed' });
    expect(alert).toHaveAccessibleDescription('Incorrect password.');
    expect(screen.getByRole('status', { name: 'Login successful' })).toHaveTextContent('Welcome back, ada@example.com!');

    await userEvent.click(screen.getAllByRole('button', { name: 'Close notification' })[0]!);
    expect(screen.queryByRole('alert', { name: 'Login failed' })).not.toBeInTheDocument();
  });

  it('adds "Reference: <request id>" to a toast reporting an error that has one', () => {
    render(<Toaster />);
    act(() => {
      toast({
        title: 'Error',
        description: 'The agent could not be saved.',
        variant: 'destructive',
        error: new ApiError('409: conflict', 409, { requestId: 'abc123' }),
      });
    });
    const alert = screen.getByRole('alert', { name: 'Error' });
    expect(within(alert).getByText('Reference: abc123')).toBeInTheDocument();
    expect(alert).toHaveAccessibleDescription('The agent could not be saved. Reference: abc123');
  });

  it('shows no Reference line for an error without a request id', () => {
    render(<Toaster />);
    act(() => {
      toast({
        title: 'Error',
        description: 'Failed to create agent.',
        variant: 'destructive',
        error: new ApiError('500: Internal Server Error', 500),
      });
      toast({ title: 'Oops', description: 'Network down.', variant: 'destructive', error: new TypeError('Failed to fetch') });
    });
    for (const name of ['Error', 'Oops']) {
      const alert = screen.getByRole('alert', { name });
      expect(alert).not.toHaveTextContent('Reference');
      expect(alert.querySelector('[data-toast-reference]')).toBeNull();
    }
    expect(screen.getByRole('alert', { name: 'Error' })).toHaveAccessibleDescription('Failed to create agent.');
  });
});
