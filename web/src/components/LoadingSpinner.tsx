import { Spin } from 'antd';

/** A centred antd spinner whose accessible name is 'Loading' (role "status"). */
export function LoadingSpinner({ fullPage = true }: { fullPage?: boolean }) {
  return (
    <div role="status" aria-label="Loading" className={fullPage ? 'loading loading--page' : 'loading'}>
      <Spin size="large" />
    </div>
  );
}
