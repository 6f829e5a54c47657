/**
 * A centred spinner whose accessible name is 'Loading' (role "status"). Plain CSS (global.css), not
 * antd's Spin: it is the first thing every route shows (HydrateFallback, ProtectedRoute), so it must
 * not pull antd into the entry chunk (docs/web-landing.md, bundle budget).
 */
export function LoadingSpinner({ fullPage = true }: { fullPage?: boolean }) {
  return (
    <div role="status" aria-label="Loading" className={fullPage ? 'loading loading--page' : 'loading'}>
      <span className="loading__spinner" aria-hidden="true" />
    </div>
  );
}
