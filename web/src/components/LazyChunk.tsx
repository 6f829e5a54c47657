import { Component, Suspense, type ReactNode } from 'react';
import { LoadingSpinner } from './LoadingSpinner';

interface ChunkErrorBoundaryProps {
  /** What could not be loaded, as the alert says it: "The chat", "The API tab". */
  what: string;
  className: string;
  children: ReactNode;
}

class ChunkErrorBoundary extends Component<ChunkErrorBoundaryProps, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    if (this.state.failed) {
      return (
        <div role="alert" className={this.props.className}>
          {this.props.what} could not be loaded. Check your connection and reload the page.
        </div>
      );
    }
    return this.props.children;
  }
}

/**
 * A React.lazy component's place: a spinner while its chunk loads, and an alert (not a blank
 * screen) when the chunk cannot be fetched.
 */
export function LazyChunk(props: ChunkErrorBoundaryProps) {
  return (
    <ChunkErrorBoundary what={props.what} className={props.className}>
      <Suspense fallback={<LoadingSpinner fullPage={false} />}>{props.children}</Suspense>
    </ChunkErrorBoundary>
  );
}
