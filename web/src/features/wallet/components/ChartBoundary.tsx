import { Component, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

/**
 * Keeps a chart's failure (its lazy chunk not loading, the drawing library throwing) inside its card:
 * the rest of the page, and the card's own text and lists, stay usable.
 */
export class ChartBoundary extends Component<{ children: ReactNode; fallback?: ReactNode }, State> {
  state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  componentDidCatch(error: unknown) {
    console.error('Chart failed:', error);
  }

  render() {
    if (this.state.failed) {
      return this.props.fallback ?? <p className="chart-fallback">The chart could not be drawn.</p>;
    }
    return this.props.children;
  }
}
