import { isRouteErrorResponse, useRouteError } from 'react-router';

/** Route error boundary (e.g. a route chunk that failed to download after a deploy). */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : 'Unknown error';
  return (
    <main className="not-found">
      <div className="not-found__card" role="alert">
        <h1 className="not-found__title">Something went wrong</h1>
        <p className="not-found__text">{message}</p>
        <p>
          {/* A plain button: this boundary is in the entry chunk, which must stay free of antd. */}
          <button type="button" className="route-error__reload" onClick={() => window.location.reload()}>
            Reload
          </button>
        </p>
      </div>
    </main>
  );
}
